//! Static routing: fill the routes a scenario leaves out with fewest-hop paths, then check that
//! every flow's packets (data one way, ACKs and replies the other) reach their destination.

use super::model::Scenario;
use super::KeyError;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// (node, destination host) -> next-hop neighbour.
pub type NextHop = BTreeMap<(String, String), String>;

/// Neighbours of each node: over wired links in link order, then over Wi-Fi (each network's
/// pairs that exchange frames, in network order). The order breaks ties between equal-length
/// paths.
pub(crate) fn neighbours(s: &Scenario) -> BTreeMap<&str, Vec<&str>> {
    let mut adjacent: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    let wired = s.links.iter().map(|link| [link.between[0].as_str(), link.between[1].as_str()]);
    for [a, b] in wired.chain(s.wifi.iter().flat_map(|w| w.pairs())) {
        adjacent.entry(a).or_default().push(b);
        adjacent.entry(b).or_default().push(a);
    }
    adjacent
}

/// Shortest-path next hops towards every host, overridden by the explicit `[[route]]`s.
/// Hosts do not forward, so paths only pass through routers.
pub(crate) fn next_hops(s: &Scenario) -> NextHop {
    let adjacent = neighbours(s);
    // Nodes by index, and each node's neighbours as indices in the same order, so that a
    // search per destination host costs O(nodes + links).
    let names: Vec<&str> = s.hosts.iter().chain(&s.routers).map(String::as_str).collect();
    let index: BTreeMap<&str, usize> = names.iter().enumerate().map(|(i, &n)| (n, i)).collect();
    let adj: Vec<Vec<usize>> =
        names.iter().map(|n| adjacent.get(n).into_iter().flatten().map(|m| index[m]).collect()).collect();
    // Routers forward, and so do the members of an ad hoc/mesh Wi-Fi network, hosts included:
    // a parking lot's relays are also sources (paper 002).
    let mut relays: Vec<bool> = (0..names.len()).map(|i| i >= s.hosts.len()).collect();
    for w in s.wifi.iter().filter(|w| w.ap.is_none()) {
        for m in w.members() {
            relays[index[m]] = true;
        }
    }
    // The next hop of every node towards every host, by index; `None`: no route.
    let mut via: Vec<Vec<Option<usize>>> = Vec::with_capacity(s.hosts.len());
    let mut hops: Vec<Option<usize>> = vec![None; names.len()];
    for dest in 0..s.hosts.len() {
        let forwards = |node: usize| node == dest || relays[node];
        // Breadth-first search outwards from the destination gives each node's hop count.
        hops.iter_mut().for_each(|h| *h = None);
        hops[dest] = Some(0);
        let mut queue = VecDeque::from([dest]);
        while let Some(node) = queue.pop_front() {
            if !forwards(node) {
                continue;
            }
            let n = hops[node].expect("queued nodes have a hop count");
            for &next in &adj[node] {
                if hops[next].is_none() {
                    hops[next] = Some(n + 1);
                    queue.push_back(next);
                }
            }
        }
        // Among the neighbours one hop closer, the first in link order.
        let closer = |node: usize, n: usize| adj[node].iter().copied().find(|&m| hops[m] == Some(n - 1) && forwards(m));
        via.push(hops.iter().enumerate().map(|(node, h)| h.filter(|&n| n > 0).and_then(|n| closer(node, n))).collect());
    }
    // The table's entries in its own order (node, then destination, by name), so that it is
    // built in one pass rather than by a million searches.
    let mut by_name: Vec<usize> = (0..names.len()).collect();
    by_name.sort_by_key(|&i| names[i]);
    let dests: Vec<usize> = by_name.iter().copied().filter(|&i| i < s.hosts.len()).collect();
    let mut next_hop: NextHop = by_name
        .iter()
        .flat_map(|&node| dests.iter().map(move |&dest| (node, dest)))
        .filter_map(|(node, dest)| {
            let hop = via[dest][node]?;
            Some(((names[node].to_string(), names[dest].to_string()), names[hop].to_string()))
        })
        .collect();
    for route in &s.routes {
        next_hop.insert((route.at.clone(), route.to.clone()), route.via.clone());
    }
    next_hop
}

/// Walks every flow's path in both directions, reporting a missing route or a routing loop.
pub(crate) fn check_paths(s: &Scenario, next_hop: &NextHop) -> Result<(), KeyError> {
    let pairs = s.flows.iter().enumerate().flat_map(|(i, f)| f.from.hosts().iter().map(move |h| (i, h, &f.to)));
    // Each (sender, receiver) pair once, and each node's way to a destination once: a walk
    // stops at a node already seen to reach it.
    let mut walked: BTreeSet<(&str, &str)> = BTreeSet::new();
    let mut reaches: BTreeSet<(&str, &str)> = BTreeSet::new();
    for (i, from, to) in pairs {
        if !walked.insert((from, to)) {
            continue;
        }
        for (src, dst, why) in [(from, to, ""), (to, from, " (for ACKs and replies)")] {
            let mut path = vec![src.as_str()];
            let mut on_path = BTreeSet::from([src.as_str()]);
            let mut node = src.as_str();
            while node != dst && !reaches.contains(&(node, dst.as_str())) {
                let Some(via) = next_hop.get(&(node.to_string(), dst.clone())) else {
                    let stuck = if node == src { String::new() } else { format!(": \"{node}\" has no route to it") };
                    return Err(KeyError::new(
                        format!("flow[{i}]"),
                        format!("no path from \"{src}\" to \"{dst}\"{why}{stuck}"),
                    ));
                };
                if !on_path.insert(via.as_str()) {
                    let start = path.iter().position(|n| n == via).expect("on the path");
                    return Err(routing_loop(s, i, dst, &path[start..], via));
                }
                path.push(via);
                node = via;
            }
            reaches.extend(path.into_iter().map(|n| (n, dst.as_str())));
        }
    }
    Ok(())
}

fn routing_loop(s: &Scenario, flow: usize, dst: &str, cycle: &[&str], back: &str) -> KeyError {
    // Blame the first explicit route on the cycle: computed routes are loop-free.
    let key = s
        .routes
        .iter()
        .position(|r| r.to == dst && cycle.contains(&r.at.as_str()))
        .map_or(format!("flow[{flow}]"), |j| format!("route[{j}]"));
    let shown: Vec<&str> = cycle.iter().copied().chain([back]).collect();
    KeyError::new(key, format!("routing loop for traffic to \"{dst}\": {}", shown.join(" -> ")))
}

/// Writes the next-hop table as a list of `{at, to, via}` records (JSON keys must be strings).
pub(crate) fn serialize_next_hop<S: serde::Serializer>(table: &NextHop, ser: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeSeq;
    let mut seq = ser.serialize_seq(Some(table.len()))?;
    for ((at, to), via) in table {
        seq.serialize_element(&super::model::Route { at: at.clone(), to: to.clone(), via: via.clone() })?;
    }
    seq.end()
}
