//! A GeoPackage feature table read a block at a time: each block is the next rows by the table's integer key
//! (`WHERE key > last ORDER BY key LIMIT n`, a range of the table's B-tree), so a county's parcels are never
//! held whole and the pipeline classifies one block while the next is read.

use std::path::{Path, PathBuf};

use rusqlite::types::ValueRef;

use super::{feature, quote, sql, value, Opened};
use crate::crs::layer::{Feature, Value};
use crate::formats::blocks::{BlockReader, LayerBlocks};
use crate::model::error::{Problem, Result};

/// The table, the query of a block after the first, and where the last block ended.
struct Blocks {
    opened: Opened,
    file: PathBuf,
    label: PathBuf,
    /// The key of the last row handed out; `None` before the first block.
    last: Option<i64>,
    /// Rows handed out so far.
    read: usize,
}

/// Opens the table of `opened` (which has an integer key or a rowid) to be read in blocks.
pub(super) fn open(opened: Opened, file: &Path, label: &Path) -> Result<LayerBlocks> {
    let count = format!("SELECT count(*) FROM {}", quote(&opened.table.name));
    let len: i64 = opened.conn.query_row(&count, [], |r| r.get(0)).map_err(sql(file))?;
    let (crs, fields) = (opened.crs.clone(), opened.fields.clone());
    let source = Blocks { opened, file: file.to_path_buf(), label: label.to_path_buf(), last: None, read: 0 };
    Ok(LayerBlocks::streamed(label, crs, fields, len.max(0) as usize, Box::new(source)))
}

impl BlockReader for Blocks {
    fn scan(&self, columns: &[usize], each: &mut dyn FnMut(usize, Vec<Value>)) -> Result<()> {
        let o = &self.opened;
        let selected: Vec<String> = columns.iter().map(|&c| quote(&o.fields[c])).collect();
        let selected = if selected.is_empty() { "NULL".to_string() } else { selected.join(", ") };
        let query = format!("SELECT {selected} FROM {}{}", quote(&o.table.name), o.key.order());
        let file = &self.file;
        let mut statement = o.conn.prepare(&query).map_err(sql(file))?;
        let mut rows = statement.query([]).map_err(sql(file))?;
        let mut record = 0;
        while let Some(row) = rows.next().map_err(sql(file))? {
            record += 1;
            // A value SQLite cannot give, or that is not text, is null here, and reported when its block is
            // read.
            let values = (columns.iter().enumerate())
                .map(|(i, &c)| {
                    row.get_ref(i).ok().and_then(|v| value(&o.fields[c], v).ok()).unwrap_or(Value::Null)
                })
                .collect();
            each(record, values);
        }
        Ok(())
    }

    fn next_block(&mut self, count: usize) -> Result<(Vec<Feature>, Vec<Problem>)> {
        let o = &self.opened;
        let key = o.key.select();
        let limit = i64::try_from(count).unwrap_or(i64::MAX);
        let query = match self.last {
            None => o.query(&format!(" ORDER BY {key} LIMIT ?1")),
            Some(_) => o.query(&format!(" WHERE {key} > ?2 ORDER BY {key} LIMIT ?1")),
        };
        let file = &self.file;
        let mut statement = o.conn.prepare_cached(&query).map_err(sql(file))?;
        let mut rows = match self.last {
            None => statement.query([limit]),
            Some(last) => statement.query([limit, last]),
        }
        .map_err(sql(file))?;
        let (mut features, mut problems) = (Vec::new(), Vec::new());
        while let Some(row) = rows.next().map_err(sql(file))? {
            if let ValueRef::Integer(k) = row.get_ref(0).map_err(sql(file))? {
                self.last = Some(k);
            }
            self.read += 1;
            let f = feature(row, self.read, &o.fields, &self.label, &mut problems).map_err(sql(file))?;
            features.push(f);
        }
        Ok((features, problems))
    }
}
