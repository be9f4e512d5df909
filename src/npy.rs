//! The `.npy` format, both ways, for 2-D little-endian float arrays in C order: the writer
//! (format 1.0; whole arrays and states, `output` writes them to `states/`) and the reader
//! (`--input` files: header parse, checked shape arithmetic, values as f64 rows).

use crate::error::Result;
use crate::float::Real;
use crate::state::State;

/// The bytes of an .npy file holding `data` (row-major) with shape (rows, cols).
pub fn encode<T: Real>(rows: usize, cols: usize, data: &[T]) -> Vec<u8> {
    let mut out = header::<T>(rows, cols);
    out.extend_from_slice(bytemuck::cast_slice(data));
    out
}

/// The header of an .npy file of shape (rows, cols), in a buffer with room for the data.
fn header<T: Real>(rows: usize, cols: usize) -> Vec<u8> {
    header_of(T::NPY_DESCR, std::mem::size_of::<T>(), rows, cols)
}

/// The header of an .npy file of values `descr` (`width` bytes each) and shape (rows, cols).
fn header_of(descr: &str, width: usize, rows: usize, cols: usize) -> Vec<u8> {
    let mut header =
        format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': ({rows}, {cols}), }}");
    // magic(6) + version(2) + header_len(2) + header + '\n' must be a multiple of 64.
    let unpadded = 10 + header.len() + 1;
    header.push_str(&" ".repeat((64 - unpadded % 64) % 64));
    header.push('\n');
    let data_len = rows * cols * width;
    let mut out = Vec::with_capacity(10 + header.len() + data_len);
    out.extend_from_slice(b"\x93NUMPY\x01\x00");
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out
}

/// A state as an N × 2d array, columns q1..qd p1..pd, in its own precision (written straight
/// into the file's bytes: no row-major copy of the state beside them).
pub fn encode_state<T: Real>(s: &State<T>) -> Vec<u8> {
    let mut out = header::<T>(s.n, 2 * s.d);
    for i in 0..s.n {
        for k in 0..s.d {
            out.extend_from_slice(bytemuck::bytes_of(&s.q[k * s.n + i]));
        }
        for k in 0..s.d {
            out.extend_from_slice(bytemuck::bytes_of(&s.p[k * s.n + i]));
        }
    }
    out
}

/// Arrays of one precision and column count (shards' states, in shard order) stacked row
/// after row into one .npy file, their bytes unchanged. Errors are messages for the user.
pub fn stack_rows(files: &[Vec<u8>]) -> Result<Vec<u8>, String> {
    let headers = files
        .iter()
        .map(|f| parse_header(f))
        .collect::<Result<Vec<_>, _>>()?;
    let first = headers.first().ok_or("no arrays to stack")?;
    if let Some(h) = headers
        .iter()
        .find(|h| (h.cols, h.width) != (first.cols, first.width))
    {
        return Err(format!(
            "arrays of ({} columns, {}-byte values) and ({} columns, {}-byte values) cannot be stacked",
            first.cols, first.width, h.cols, h.width
        ));
    }
    let rows = headers.iter().map(|h| h.rows).sum();
    let descr = if first.width == 8 { "<f8" } else { "<f4" };
    let mut out = header_of(descr, first.width, rows, first.cols);
    for (f, h) in files.iter().zip(&headers) {
        let body = &f[h.data_start..];
        if body.len() != h.rows * h.cols * h.width {
            return Err("truncated .npy file".into());
        }
        out.extend_from_slice(body);
    }
    Ok(out)
}

/// A decoded 2-D array: `data` holds `rows` × `cols` values, row-major.
#[derive(Debug)]
pub struct Array2 {
    pub rows: usize,
    pub cols: usize,
    pub data: Vec<f64>,
}

/// A 2-D `<f4`/`<f8` C-order array as f64. Errors are messages for the user.
pub fn decode_f64(bytes: &[u8]) -> Result<Array2, String> {
    let header = parse_header(bytes)?;
    let body = &bytes[header.data_start..];
    let (rows, cols, width) = (header.rows, header.cols, header.width);
    // Checked: a header may declare any shape, and a wrapped product would accept a short body.
    let needed = rows
        .checked_mul(cols)
        .and_then(|count| count.checked_mul(width))
        .ok_or_else(|| {
            format!(
                "malformed .npy: shape ({rows}, {cols}) is too large for any file, file has {} data bytes",
                body.len()
            )
        })?;
    if body.len() != needed {
        return Err(format!(
            "truncated or malformed .npy: shape ({rows}, {cols}) needs {needed} data bytes, file has {}",
            body.len()
        ));
    }
    let data = if width == 8 {
        body.chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
            .collect()
    } else {
        body.chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()) as f64)
            .collect()
    };
    Ok(Array2 { rows, cols, data })
}

/// The data of a 2-D float .npy file as `encode` writes it: (rows, columns, bytes per value,
/// the values' bytes).
pub fn data_of(bytes: &[u8]) -> Result<(usize, usize, usize, &[u8]), String> {
    let h = parse_header(bytes)?;
    let data = bytes
        .get(h.data_start..)
        .filter(|d| d.len() == h.rows * h.cols * h.width)
        .ok_or("the .npy file's data does not fill its shape")?;
    Ok((h.rows, h.cols, h.width, data))
}

/// What an .npy header says about the array that follows it.
struct Header {
    rows: usize,
    cols: usize,
    /// Bytes per value: 4 or 8.
    width: usize,
    /// Offset of the first data byte in the file.
    data_start: usize,
}

/// The header of a 2-D float .npy file: magic, version, dtype, order and shape, checked.
fn parse_header(bytes: &[u8]) -> Result<Header, String> {
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err("not a .npy file (bad magic)".into());
    }
    let (hlen, start) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        2 | 3 if bytes.len() >= 12 => (
            u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
            12,
        ),
        v => return Err(format!("unsupported .npy version {v}")),
    };
    let header = bytes
        .get(start..start + hlen)
        .and_then(|h| std::str::from_utf8(h).ok())
        .ok_or("malformed .npy header")?;
    let width = dtype_width(header)?;
    if field(header, "fortran_order").is_some_and(|f| f.starts_with("True")) {
        return Err(
            "Fortran-ordered arrays are not supported: save with np.ascontiguousarray".into(),
        );
    }
    let (rows, cols) = shape(header)?;
    Ok(Header {
        rows,
        cols,
        width,
        data_start: start + hlen,
    })
}

/// Bytes per value of the header's `descr`: float32 or float64, little-endian.
fn dtype_width(header: &str) -> Result<usize, String> {
    let descr = field(header, "descr").ok_or("malformed .npy header: no 'descr'")?;
    let descr = descr.trim_start_matches(['\'', '"']);
    let descr = &descr[..descr.find(['\'', '"']).unwrap_or(descr.len())];
    match descr {
        "<f8" | "|f8" | "f8" => Ok(8),
        "<f4" | "|f4" | "f4" => Ok(4),
        other => Err(format!(
            "unsupported dtype {other}: save the array as float32 or float64 (little-endian)"
        )),
    }
}

/// The header's `shape`, which must be 2-D: (rows, cols).
fn shape(header: &str) -> Result<(usize, usize), String> {
    let shape_start = header
        .find("'shape'")
        .ok_or("malformed .npy header: no 'shape'")?;
    let open = header[shape_start..]
        .find('(')
        .ok_or("malformed .npy shape")?
        + shape_start;
    let close = header[open..].find(')').ok_or("malformed .npy shape")? + open;
    let dims: Vec<usize> = header[open + 1..close]
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse::<usize>()
                .map_err(|_| format!("malformed .npy shape {:?}", &header[open..=close]))
        })
        .collect::<Result<_, _>>()?;
    match dims[..] {
        [r, c] => Ok((r, c)),
        _ => Err(format!(
            "expected a 2-D array (N rows × 2d columns), got shape {dims:?}"
        )),
    }
}

/// The text after `'key':` in the header's dictionary, up to the header's end.
fn field<'a>(header: &'a str, key: &str) -> Option<&'a str> {
    let at = header.find(&format!("'{key}'"))?;
    let rest = &header[at + key.len() + 2..];
    let colon = rest.find(':')?;
    Some(rest[colon + 1..].trim_start())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stacked_rows_equal_the_whole_array() {
        let whole = encode(
            5,
            2,
            &[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0],
        );
        let a = encode(2, 2, &[1.0f32, 2.0, 3.0, 4.0]);
        let b = encode(3, 2, &[5.0f32, 6.0, 7.0, 8.0, 9.0, 10.0]);
        assert_eq!(stack_rows(&[a.clone(), b]).unwrap(), whole);
        assert!(stack_rows(&[a.clone(), encode(1, 2, &[1.0f64, 2.0])]).is_err());
        assert!(stack_rows(&[a[..a.len() - 1].to_vec()]).is_err());
    }

    #[test]
    fn roundtrip_f32_and_f64() {
        let b = encode(2, 3, &[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.5]);
        assert_eq!((b.len() - 128) % 4, 0);
        assert_eq!(&b[..6], b"\x93NUMPY");
        let a = decode_f64(&b).unwrap();
        assert_eq!((a.rows, a.cols), (2, 3));
        assert_eq!(a.data, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.5]);
        let b = encode(1, 2, &[0.1f64, -7.0]);
        assert_eq!(decode_f64(&b).unwrap().data, vec![0.1, -7.0]);
    }

    /// A component-major state (d = 2) comes out as rows q1 q2 p1 p2, the same bytes as
    /// `encode` of the row-major copy.
    #[test]
    fn state_is_encoded_row_by_row() {
        let s = State {
            n: 3,
            d: 2,
            nt: 0,
            q: vec![1.0f32, 2.0, 3.0, 10.0, 20.0, 30.0],
            p: vec![-1.0, -2.0, -3.0, -10.0, -20.0, -30.0],
            unconverged: vec![0; 3],
            eq: Vec::new(),
            ep: Vec::new(),
            chaos: Vec::new(),
        };
        let rows = [
            1.0f32, 10.0, -1.0, -10.0, 2.0, 20.0, -2.0, -20.0, 3.0, 30.0, -3.0, -30.0,
        ];
        assert_eq!(encode_state(&s), encode(3, 4, &rows));
    }

    /// An f8 file whose header declares `shape` (as written) over the given data bytes.
    fn with_shape(shape: &str, body: &[u8]) -> Vec<u8> {
        let mut header = format!("{{'descr': '<f8', 'fortran_order': False, 'shape': {shape}, }}");
        header.push_str(&" ".repeat((64 - (10 + header.len() + 1) % 64) % 64));
        header.push('\n');
        let mut out = b"\x93NUMPY\x01\x00".to_vec();
        out.extend_from_slice(&(header.len() as u16).to_le_bytes());
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(body);
        out
    }

    /// Issue 15, fault 2: rows × cols × width wrapped around, so a huge shape over no data (or
    /// over 48 bytes) was accepted.
    #[test]
    fn shape_overflow_is_an_error() {
        let ok = with_shape("(3, 2)", &[0u8; 48]);
        assert_eq!(decode_f64(&ok).unwrap().rows, 3);
        for (shape, body) in [
            ("(2305843009213693952, 2)", &[][..]),
            ("(1152921504606846979, 2)", &[0u8; 48][..]),
            ("(18446744073709551615, 18446744073709551615)", &[][..]),
        ] {
            let err = decode_f64(&with_shape(shape, body)).unwrap_err();
            assert!(err.contains("malformed .npy"), "{shape}: {err}");
        }
        // The body must be exactly what the shape says: neither short nor long.
        assert!(decode_f64(&with_shape("(3, 2)", &[0u8; 56])).is_err());
        assert!(decode_f64(&with_shape("(3, 2)", &[0u8; 40])).is_err());
    }

    #[test]
    fn truncated_file_is_an_error() {
        let b = encode(4, 2, &[0.0f64; 8]);
        assert!(decode_f64(&b[..b.len() - 3])
            .unwrap_err()
            .contains("truncated"));
        assert!(decode_f64(b"hello").is_err());
    }
}
