//! Zarr v3 stores (`--store zarr`), written with the `zarrs` crate: a group holding arrays of
//! f32, f64 or i64 values, each array's chunks byte-shuffled and compressed with zstd. A chunk is written whole
//! when its data is ready (`Zarr::write_rows`), so a run fills its store as it goes; what a
//! chunk that was never written reads as is the array's fill value (NaN for floats).
//!
//! The layout of a run's store (its arrays, their dimensions and chunks) is `run::store`'s;
//! this module knows only arrays, chunks and bytes.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;
use zarrs::array::codec::{BytesToBytesCodecTraits, CodecOptions, ShuffleCodec, ZstdCodec};
use zarrs::array::{Array, ArrayBuilder, ArrayBytes, DataType, FillValue, RawBytesOffsets};
use zarrs::filesystem::FilesystemStore;
use zarrs::group::GroupBuilder;

use crate::error::{Error, Result};

/// The store's folder in a run's folder.
pub const STORE_DIR: &str = "states.zarr";

/// The zstd level of every chunk: the fastest, since phase-space values (full-precision
/// floats) gain little from a slower one. Each chunk's bytes are shuffled first (the first
/// byte of every value, then the second, …), so that the sign and exponent bytes, alike from
/// value to value, lie together: 11 % fewer bytes than zstd alone on a run's f64 states, at
/// about the same speed (BENCHMARKS.md).
const ZSTD_LEVEL: i32 = 1;

/// The values of an array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Values {
    F32,
    F64,
    I64,
}

impl Values {
    /// Bytes per value.
    pub fn width(self) -> usize {
        match self {
            Values::F32 => 4,
            Values::F64 | Values::I64 => 8,
        }
    }

    fn data_type(self) -> (DataType, FillValue) {
        match self {
            Values::F32 => (DataType::Float32, FillValue::from(f32::NAN)),
            Values::F64 => (DataType::Float64, FillValue::from(f64::NAN)),
            Values::I64 => (DataType::Int64, FillValue::from(0i64)),
        }
    }
}

/// One array of a store: its name in the group, shape, chunk shape, values and the names of
/// its dimensions, with attributes.
pub struct ArraySpec<'a> {
    pub name: &'a str,
    pub shape: Vec<u64>,
    pub chunks: Vec<u64>,
    pub values: Values,
    pub dims: &'a [&'a str],
    pub attributes: serde_json::Map<String, serde_json::Value>,
}

/// A Zarr v3 store in a folder.
pub struct Zarr {
    root: PathBuf,
    store: Arc<FilesystemStore>,
}

/// An error of the store under `path`.
fn failed(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Output {
        path: path.to_path_buf(),
        source: std::io::Error::other(e.to_string()),
    }
}

impl Zarr {
    /// The store in the folder `root` (created with its parents when missing).
    pub fn open(root: &Path) -> Result<Zarr> {
        std::fs::create_dir_all(root).map_err(|source| Error::Output {
            path: root.to_path_buf(),
            source,
        })?;
        let store = FilesystemStore::new(root).map_err(|e| failed(root, e))?;
        Ok(Zarr {
            root: root.to_path_buf(),
            store: Arc::new(store),
        })
    }

    /// The store's folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Write the group's metadata (`zarr.json` at the root) with `attributes`.
    pub fn write_group(
        &self,
        attributes: serde_json::Map<String, serde_json::Value>,
    ) -> Result<()> {
        let mut group = GroupBuilder::new()
            .build(self.store.clone(), "/")
            .map_err(|e| failed(&self.root, e))?;
        *group.attributes_mut() = attributes;
        group.store_metadata().map_err(|e| failed(&self.root, e))
    }

    /// Write the metadata of the array `spec` describes (its chunks, if any, are kept).
    pub fn create(&self, spec: &ArraySpec<'_>) -> Result<()> {
        let (data_type, fill) = spec.values.data_type();
        let codecs: Vec<Arc<dyn BytesToBytesCodecTraits>> = vec![
            Arc::new(ShuffleCodec::new(spec.values.width())),
            Arc::new(ZstdCodec::new(ZSTD_LEVEL, false)),
        ];
        let array = ArrayBuilder::new(spec.shape.clone(), spec.chunks.clone(), data_type, fill)
            .bytes_to_bytes_codecs(codecs)
            .dimension_names(Some(spec.dims.to_vec()))
            .attributes(spec.attributes.clone())
            .build(self.store.clone(), &format!("/{}", spec.name))
            .map_err(|e| failed(&self.root.join(spec.name), e))?;
        array
            .store_metadata()
            .map_err(|e| failed(&self.root.join(spec.name), e))
    }

    fn array(&self, name: &str) -> Result<Array<FilesystemStore>> {
        Array::open(self.store.clone(), &format!("/{name}"))
            .map_err(|e| failed(&self.root.join(name), e))
    }

    /// Write the rows `first..` of the array `name` at the index `lead` of its leading
    /// dimensions (a snapshot's index; none for an array of rows), from `bytes`: whole rows,
    /// each the array's last dimension's values, native byte order. `first` lies on a chunk
    /// boundary, and the rows end on one or at the array's end. Each chunk is written whole
    /// (the rows beyond the array's end filled with the fill value), the chunks in parallel.
    pub fn write_rows(&self, name: &str, lead: &[u64], first: u64, bytes: &[u8]) -> Result<()> {
        let array = self.array(name)?;
        let shape = array.shape().to_vec();
        let chunk_shape: Vec<u64> = array
            .chunk_shape(&vec![0; shape.len()])
            .map_err(|e| failed(&self.root.join(name), e))?
            .iter()
            .map(|c| c.get())
            .collect();
        let k = lead.len();
        let (rows_per_chunk, row_values): (u64, u64) =
            (chunk_shape[k], chunk_shape[k + 1..].iter().product());
        let width = array.data_type().fixed_size().unwrap_or(1);
        let row_bytes = row_values as usize * width;
        let rows = (bytes.len() / row_bytes.max(1)) as u64;
        let bad = |what: String| failed(&self.root.join(name), what);
        if !first.is_multiple_of(rows_per_chunk)
            || bytes.len() as u64 != rows * row_bytes as u64
            || (first + rows < shape[k] && !(first + rows).is_multiple_of(rows_per_chunk))
            || first + rows > shape[k]
        {
            return Err(bad(format!(
                "rows {first}..{} do not fill whole chunks of {rows_per_chunk} rows",
                first + rows
            )));
        }
        let fill = array.fill_value().as_ne_bytes().to_vec();
        let options = CodecOptions::builder().store_empty_chunks(true).build();
        let chunk_bytes = rows_per_chunk as usize * row_bytes;
        bytes
            .par_chunks(chunk_bytes.max(1))
            .enumerate()
            .try_for_each(|(c, piece)| {
                let mut index = lead.to_vec();
                index.push(first / rows_per_chunk + c as u64);
                index.extend(std::iter::repeat_n(0, shape.len() - k - 1));
                let mut whole = piece.to_vec();
                while whole.len() < chunk_bytes {
                    whole.extend_from_slice(&fill);
                }
                array
                    .store_chunk_opt(&index, whole, &options)
                    .map_err(|e| bad(e.to_string()))
            })
    }

    /// Write a one-dimensional array of text `name` over the dimension `dim`, in one chunk
    /// (the names of a state's components).
    pub fn write_names(&self, name: &str, dim: &str, names: &[String]) -> Result<()> {
        let path = self.root.join(name);
        let n = names.len() as u64;
        let array = ArrayBuilder::new(vec![n], vec![n.max(1)], DataType::String, "")
            .dimension_names(Some([dim]))
            .build(self.store.clone(), &format!("/{name}"))
            .map_err(|e| failed(&path, e))?;
        array.store_metadata().map_err(|e| failed(&path, e))?;
        let mut offsets = vec![0];
        for s in names {
            offsets.push(offsets.last().copied().unwrap_or(0) + s.len());
        }
        let offsets = RawBytesOffsets::new(offsets).map_err(|e| failed(&path, e))?;
        let bytes = ArrayBytes::new_vlen(names.concat().into_bytes(), offsets)
            .map_err(|e| failed(&path, e))?;
        array.store_chunk(&[0], bytes).map_err(|e| failed(&path, e))
    }

    /// The values at the index `lead` of the first dimension of the array `name` (one
    /// snapshot), as native-endian bytes.
    pub fn read_at(&self, name: &str, lead: u64) -> Result<Vec<u8>> {
        let array = self.array(name)?;
        let ranges: Vec<std::ops::Range<u64>> = std::iter::once(lead..lead + 1)
            .chain(array.shape()[1..].iter().map(|&n| 0..n))
            .collect();
        let subset = zarrs::array_subset::ArraySubset::new_with_ranges(&ranges);
        let bytes = array
            .retrieve_array_subset(&subset)
            .and_then(|b| b.into_fixed().map(|b| b.into_owned()).map_err(Into::into))
            .map_err(|e| failed(&self.root.join(name), e))?;
        Ok(bytes)
    }

    /// The values of the array `name`, all of it, as native-endian bytes (tests and `merge`
    /// read stores back with this).
    pub fn read_all(&self, name: &str) -> Result<(Vec<u64>, Vec<u8>)> {
        let array = self.array(name)?;
        let bytes = array
            .retrieve_array_subset(&array.subset_all())
            .map_err(|e| failed(&self.root.join(name), e))?;
        let bytes = bytes
            .into_fixed()
            .map_err(|e| failed(&self.root.join(name), e))?;
        Ok((array.shape().to_vec(), bytes.into_owned()))
    }
}

/// Whether `rel`, a file's path inside a store's folder, is one that a store phaseflow writes
/// holds: a `zarr.json`, or a chunk `NAME/c/I/J…` (indices in decimal).
pub fn own_file(rel: &Path) -> bool {
    if rel
        .components()
        .any(|c| !matches!(c, std::path::Component::Normal(_)))
    {
        return false;
    }
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    match parts.as_slice() {
        [one] => one == "zarr.json",
        [_, json] if json == "zarr.json" => true,
        [_, c, rest @ ..] if c == "c" && !rest.is_empty() => rest
            .iter()
            .all(|i| !i.is_empty() && i.bytes().all(|b| b.is_ascii_digit())),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_written_in_chunks_read_back_whole() {
        let dir = tempfile::tempdir().unwrap();
        let z = Zarr::open(&dir.path().join("s.zarr")).unwrap();
        z.write_group(Default::default()).unwrap();
        z.create(&ArraySpec {
            name: "a",
            shape: vec![2, 5, 2],
            chunks: vec![1, 2, 2],
            values: Values::F64,
            dims: &["t", "point", "c"],
            attributes: Default::default(),
        })
        .unwrap();
        let rows: Vec<f64> = (0..10).map(f64::from).collect();
        z.write_rows("a", &[1], 0, bytemuck::cast_slice(&rows[..4]))
            .unwrap();
        z.write_rows("a", &[1], 2, bytemuck::cast_slice(&rows[4..]))
            .unwrap();
        // Not on a chunk boundary.
        assert!(z
            .write_rows("a", &[0], 1, bytemuck::cast_slice(&rows[..4]))
            .is_err());
        let (shape, bytes) = z.read_all("a").unwrap();
        assert_eq!(shape, vec![2, 5, 2]);
        let got: Vec<f64> = bytemuck::pod_collect_to_vec(&bytes);
        assert!(got[..10].iter().all(|v| v.is_nan()));
        assert_eq!(&got[10..], &rows[..]);
        assert!(own_file(Path::new("a/c/1/2/0")));
        assert!(own_file(Path::new("zarr.json")));
        assert!(!own_file(Path::new("a/c/x")));
        assert!(!own_file(Path::new("../zarr.json")));
    }
}
