"""Analytical models used to check the simulator against closed-form results.

:mod:`airlab.model.bianchi` holds Bianchi's (2000) saturation model of the 802.11 DCF and the
single-station MAC efficiency; :mod:`airlab.model.mu_ofdma` paper 000's trigger-frame cycle
model of 802.11ax uplink OFDMA (its eqs. 1-8); :mod:`airlab.model.fluid` its fluid model of
BBRv3 and CUBIC under PFIFO, FQ-CoDel and CAKE (eqs. 9-24); :mod:`airlab.model.bbr_wifi6` the
two together on paper 000's testbed (``airlab model bbr-wifi6``). The modules depend only on
numpy, scipy and pandas, not on the engine.
"""
