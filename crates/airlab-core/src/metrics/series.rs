//! Sampled time series, stored column-wise (one Vec per column) so they convert to DataFrames
//! and Parquet without reshaping or per-row objects. Missing values are NaN.

use std::collections::{BTreeMap, HashMap};

/// A column of one table: its position in the table's values, so that writing a value costs
/// no lookup by name. From [`Table::column_id`], or by position in the schema a table was
/// made with ([`Table::with_columns`]; the `id` constants of `columns.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ColumnId(u32);

impl ColumnId {
    /// The column at `position` in the schema its table was made with.
    pub const fn at(position: u32) -> Self {
        ColumnId(position)
    }
}

/// A long-format table: every row is (time, entity, values...). Entities (flows, queues,
/// links) are stored once by name; each row holds its entity's index.
///
/// A column belongs to the table once a row has a value in it, whenever it was registered:
/// the readers see those columns, in name order.
#[derive(Default, Debug, Clone)]
pub struct Table {
    pub time_s: Vec<f64>,
    /// Per row: the index in `names` of the entity it belongs to.
    pub entity: Vec<u32>,
    /// Entity names, in the order they first appeared.
    pub names: Vec<String>,
    index: HashMap<String, u32>,
    /// Per column, in the order the columns were registered: its values, empty until a row
    /// has one.
    values: Vec<Vec<f64>>,
    /// Each column's id by name, in name order: the order every reader sees.
    ids: BTreeMap<String, ColumnId>,
}

impl Table {
    /// A table with the columns of `schema` registered in its order, so that the column at
    /// position `i` has the id `ColumnId::at(i)`.
    pub fn with_columns(schema: &[super::columns::Column]) -> Self {
        let mut t = Table::default();
        for c in schema {
            t.column_id(c.name);
        }
        t
    }

    pub fn rows(&self) -> usize {
        self.time_s.len()
    }

    /// Make room for `rows` more rows in every column, present and future, so that a long
    /// run's columns are allocated once rather than grown (and briefly held twice) by doubling.
    pub fn reserve(&mut self, rows: usize) {
        self.time_s.reserve_exact(rows);
        self.entity.reserve_exact(rows);
        for col in self.values.iter_mut().filter(|c| !c.is_empty()) {
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

    /// The id of the column `name`, registering it if it is new (it joins the table with its
    /// first value).
    pub fn column_id(&mut self, name: &str) -> ColumnId {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = ColumnId(self.values.len() as u32);
        self.values.push(Vec::new());
        self.ids.insert(name.to_string(), id);
        id
    }

    /// Set a column of the current row; the rows before it that have no value in the column
    /// get NaN.
    pub fn set(&mut self, column: ColumnId, value: f64) {
        let n = self.rows();
        let col = &mut self.values[column.0 as usize];
        if col.is_empty() {
            col.reserve_exact(self.time_s.capacity());
        }
        col.resize(n - 1, f64::NAN);
        col.push(value);
    }

    /// Pad every column to the row count so the table is rectangular.
    pub fn finish(&mut self) {
        let n = self.rows();
        for col in self.values.iter_mut().filter(|c| !c.is_empty()) {
            col.resize(n, f64::NAN);
        }
    }

    /// The columns with values, in name order.
    pub fn columns(&self) -> impl Iterator<Item = (&str, &[f64])> {
        self.ids
            .iter()
            .map(|(name, id)| (name.as_str(), self.values[id.0 as usize].as_slice()))
            .filter(|(_, col)| !col.is_empty())
    }

    /// The columns with values, in name order, moved out of the table.
    pub fn into_columns(self) -> impl Iterator<Item = (String, Vec<f64>)> {
        let mut values = self.values;
        self.ids
            .into_iter()
            .map(move |(name, id)| (name, std::mem::take(&mut values[id.0 as usize])))
            .filter(|(_, col)| !col.is_empty())
    }

    pub fn column(&self, name: &str) -> Option<&[f64]> {
        let id = self.ids.get(name)?;
        Some(self.values[id.0 as usize].as_slice()).filter(|col| !col.is_empty())
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
        let (Some(col), Some(&id)) = (self.column(column), self.index.get(entity)) else {
            return Vec::new();
        };
        self.entity.iter().zip(col).filter(|(e, _)| **e == id).map(|(_, v)| *v).collect()
    }
}

/// The columns of one component's variables (a flow's congestion control, a queue's qdisc),
/// named `<prefix><variable>`. A component reports the same variables in the same order at
/// every sample, so each row takes the ids the previous one found rather than building and
/// looking up the names again; a variable that differs from the previous row's at its place
/// is looked up by name.
#[derive(Default, Debug)]
pub struct VarColumns {
    ids: Vec<(&'static str, ColumnId)>,
}

impl VarColumns {
    /// Set the current row of `table` to the component's `vars`.
    pub fn set(&mut self, table: &mut Table, prefix: &str, vars: &[(&'static str, f64)]) {
        for (i, &(var, value)) in vars.iter().enumerate() {
            let id = match self.ids.get(i) {
                Some(&(known, id)) if known == var => id,
                _ => {
                    let id = table.column_id(&format!("{prefix}{var}"));
                    self.ids.truncate(i);
                    self.ids.push((var, id));
                    id
                }
            };
            table.set(id, value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_padded_with_nan() {
        let mut t = Table::default();
        let (x, y) = (t.column_id("x"), t.column_id("y"));
        t.push_row(0.1, "a");
        t.set(x, 1.0);
        t.push_row(0.1, "b");
        t.set(y, 2.0);
        t.push_row(0.2, "a");
        t.finish();
        assert_eq!(t.column("x").unwrap().len(), 3);
        assert!(t.column("x").unwrap()[1].is_nan());
        assert!(t.column("y").unwrap()[0].is_nan());
        assert_eq!(t.values_of("b", "y"), vec![2.0]);
    }

    /// Readers see the columns that have values, in name order, whatever order they were
    /// registered and first set in.
    #[test]
    fn columns_appear_with_their_first_value_in_name_order() {
        let mut t = Table::default();
        let (b, never, a) = (t.column_id("b"), t.column_id("c"), t.column_id("a"));
        assert_ne!(never, a);
        t.push_row(0.0, "e");
        t.set(b, 1.0);
        assert_eq!(t.columns().map(|(name, _)| name).collect::<Vec<_>>(), ["b"]);
        t.push_row(1.0, "e");
        t.set(a, 2.0);
        t.finish();
        assert!(t.column("c").is_none());
        let names: Vec<_> = t.columns().map(|(name, _)| name.to_string()).collect();
        assert_eq!(names, ["a", "b"]);
        let moved: Vec<_> = t.into_columns().map(|(name, col)| (name, col.len())).collect();
        assert_eq!(moved, [("a".to_string(), 2), ("b".to_string(), 2)]);
    }

    #[test]
    fn variables_keep_their_columns_when_they_change() {
        let mut t = Table::default();
        let mut vars = VarColumns::default();
        t.push_row(0.0, "q");
        vars.set(&mut t, "qdisc.", &[("x", 1.0), ("y", 2.0)]);
        t.push_row(1.0, "q");
        vars.set(&mut t, "qdisc.", &[("y", 3.0)]);
        t.push_row(2.0, "q");
        vars.set(&mut t, "qdisc.", &[("x", 4.0), ("y", 5.0)]);
        t.finish();
        let x = t.values_of("q", "qdisc.x");
        assert_eq!((x[0], x[2]), (1.0, 4.0));
        assert!(x[1].is_nan());
        assert_eq!(t.values_of("q", "qdisc.y"), [2.0, 3.0, 5.0]);
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
