//! Sampled time series, stored column-wise (one Vec per column) so they convert to DataFrames
//! and Parquet without reshaping or per-row objects. Missing values are NaN.

use std::collections::{BTreeMap, HashMap};

/// A long-format table: every row is (time, entity, values...). Entities (flows, queues,
/// links) are stored once by name; each row holds its entity's index.
#[derive(Default, Debug, Clone)]
pub struct Table {
    pub time_s: Vec<f64>,
    /// Per row: the index in `names` of the entity it belongs to.
    pub entity: Vec<u32>,
    /// Entity names, in the order they first appeared.
    pub names: Vec<String>,
    index: HashMap<String, u32>,
    pub columns: BTreeMap<String, Vec<f64>>,
}

impl Table {
    pub fn rows(&self) -> usize {
        self.time_s.len()
    }

    /// Make room for `rows` more rows in every column, present and future, so that a long
    /// run's columns are allocated once rather than grown (and briefly held twice) by doubling.
    pub fn reserve(&mut self, rows: usize) {
        self.time_s.reserve_exact(rows);
        self.entity.reserve_exact(rows);
        for col in self.columns.values_mut() {
            col.reserve_exact(rows);
        }
    }

    /// Start a row; then set its values with [`Table::set`].
    pub fn push_row(&mut self, time_s: f64, entity: &str) {
        let id = match self.index.get(entity) {
            Some(&id) => id,
            None => {
                let id = self.names.len() as u32;
                self.names.push(entity.to_string());
                self.index.insert(entity.to_string(), id);
                id
            }
        };
        self.time_s.push(time_s);
        self.entity.push(id);
    }

    /// Set a column of the current row, creating the column (NaN-filled) if it is new.
    pub fn set(&mut self, column: &str, value: f64) {
        let n = self.rows();
        let col = match self.columns.get_mut(column) {
            Some(col) => col,
            None => {
                self.columns.entry(column.to_string()).or_insert_with(|| Vec::with_capacity(self.time_s.capacity()))
            }
        };
        col.resize(n - 1, f64::NAN);
        col.push(value);
    }

    /// Pad every column to the row count so the table is rectangular.
    pub fn finish(&mut self) {
        let n = self.rows();
        for col in self.columns.values_mut() {
            col.resize(n, f64::NAN);
        }
    }

    pub fn column(&self, name: &str) -> Option<&[f64]> {
        self.columns.get(name).map(|c| c.as_slice())
    }

    /// The index in `names` of an entity.
    pub fn entity_id(&self, name: &str) -> Option<u32> {
        self.index.get(name).copied()
    }

    /// The entity name of every row.
    pub fn entities(&self) -> impl Iterator<Item = &str> {
        self.entity.iter().map(|&id| self.names[id as usize].as_str())
    }

    /// Row indices per entity (indexed like `names`), in time order.
    pub fn rows_by_entity(&self) -> Vec<Vec<u32>> {
        let mut rows = vec![Vec::new(); self.names.len()];
        for (i, &id) in self.entity.iter().enumerate() {
            rows[id as usize].push(i as u32);
        }
        rows
    }

    /// Values of `column` for rows of `entity`.
    pub fn values_of(&self, entity: &str, column: &str) -> Vec<f64> {
        let (Some(col), Some(&id)) = (self.columns.get(column), self.index.get(entity)) else {
            return Vec::new();
        };
        self.entity.iter().zip(col).filter(|(e, _)| **e == id).map(|(_, v)| *v).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_padded_with_nan() {
        let mut t = Table::default();
        t.push_row(0.1, "a");
        t.set("x", 1.0);
        t.push_row(0.1, "b");
        t.set("y", 2.0);
        t.push_row(0.2, "a");
        t.finish();
        assert_eq!(t.column("x").unwrap().len(), 3);
        assert!(t.column("x").unwrap()[1].is_nan());
        assert!(t.column("y").unwrap()[0].is_nan());
        assert_eq!(t.values_of("b", "y"), vec![2.0]);
    }

    #[test]
    fn entities_are_stored_once() {
        let mut t = Table::default();
        for k in 0..3 {
            t.push_row(k as f64, "flow");
            t.push_row(k as f64, "queue");
        }
        assert_eq!(t.names, ["flow", "queue"]);
        assert_eq!(t.entity, [0, 1, 0, 1, 0, 1]);
        assert_eq!(t.entities().collect::<Vec<_>>(), ["flow", "queue", "flow", "queue", "flow", "queue"]);
        assert_eq!(t.rows_by_entity(), vec![vec![0, 2, 4], vec![1, 3, 5]]);
    }
}
