//! Sampled time series, stored column-wise (one Vec per column) so they convert to DataFrames
//! and Parquet without reshaping. Missing values are NaN.

use std::collections::BTreeMap;

/// A long-format table: every row is (time, entity, values...).
#[derive(Default, Debug, Clone)]
pub struct Table {
    pub time_s: Vec<f64>,
    /// The entity (flow, queue or link) each row belongs to.
    pub entity: Vec<String>,
    pub columns: BTreeMap<String, Vec<f64>>,
}

impl Table {
    pub fn rows(&self) -> usize {
        self.time_s.len()
    }

    /// Start a row; then set its values with [`Table::set`].
    pub fn push_row(&mut self, time_s: f64, entity: &str) {
        self.time_s.push(time_s);
        self.entity.push(entity.to_string());
    }

    /// Set a column of the current row, creating the column (NaN-filled) if it is new.
    pub fn set(&mut self, column: &str, value: f64) {
        let n = self.rows();
        let col = self.columns.entry(column.to_string()).or_default();
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

    /// Values of `column` for rows of `entity`.
    pub fn values_of(&self, entity: &str, column: &str) -> Vec<f64> {
        match self.columns.get(column) {
            Some(col) => self.entity.iter().zip(col).filter(|(e, _)| e.as_str() == entity).map(|(_, v)| *v).collect(),
            None => Vec::new(),
        }
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
}
