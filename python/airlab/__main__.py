from airlab.cli import main

main()
