//! Static routing: fill the routes a scenario leaves out with fewest-hop paths, then check that
//! every flow's packets (data one way, ACKs and replies the other) reach their destination.

use super::model::Scenario;
use super::KeyError;
use std::collections::{BTreeMap, VecDeque};

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
    // Members of an ad hoc/mesh Wi-Fi network relay for each other, hosts included: a
    // parking lot's relays are also sources (paper 002).
    let mesh_member = |node: &str| s.wifi.iter().any(|w| w.ap.is_none() && w.members().contains(&node));
    let forwards = |node: &str, dest: &str| node == dest || s.routers.iter().any(|r| r == node) || mesh_member(node);
    let mut next_hop = NextHop::new();
    for dest in &s.hosts {
        // Breadth-first search outwards from the destination gives each node's hop count.
        let mut hops = BTreeMap::from([(dest.as_str(), 0usize)]);
        let mut queue = VecDeque::from([dest.as_str()]);
        while let Some(node) = queue.pop_front() {
            if !forwards(node, dest) {
                continue;
            }
            for &next in adjacent.get(node).into_iter().flatten() {
                if !hops.contains_key(next) {
                    hops.insert(next, hops[node] + 1);
                    queue.push_back(next);
                }
            }
        }
        for (&node, &n) in hops.iter().filter(|(&node, _)| node != dest) {
            let via = adjacent[node].iter().find(|&&m| hops.get(m) == Some(&(n - 1)) && forwards(m, dest));
            if let Some(via) = via {
                next_hop.insert((node.to_string(), dest.clone()), via.to_string());
            }
        }
    }
    for route in &s.routes {
        next_hop.insert((route.at.clone(), route.to.clone()), route.via.clone());
    }
    next_hop
}

/// Walks every flow's path in both directions, reporting a missing route or a routing loop.
pub(crate) fn check_paths(s: &Scenario, next_hop: &NextHop) -> Result<(), KeyError> {
    let pairs = s.flows.iter().enumerate().flat_map(|(i, f)| f.from.hosts().iter().map(move |h| (i, h, &f.to)));
    for (i, from, to) in pairs {
        for (src, dst, why) in [(from, to, ""), (to, from, " (for ACKs and replies)")] {
            let mut path = vec![src.as_str()];
            let mut node = src.as_str();
            while node != dst {
                let Some(via) = next_hop.get(&(node.to_string(), dst.clone())) else {
                    let stuck = if node == src { String::new() } else { format!(": \"{node}\" has no route to it") };
                    return Err(KeyError::new(
                        format!("flow[{i}]"),
                        format!("no path from \"{src}\" to \"{dst}\"{why}{stuck}"),
                    ));
                };
                if let Some(start) = path.iter().position(|n| n == via) {
                    return Err(routing_loop(s, i, dst, &path[start..], via));
                }
                path.push(via);
                node = via;
            }
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
