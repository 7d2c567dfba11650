//! numpy arrays in and out.
//!
//! Out: [`frozen`] gives a slice of fixed-size rows (`[[f32; 3]]`, ...)
//! to numpy as a read-only copy, made once per owner and cached in a
//! [`PyOnceLock`] of the frozen object that holds the rows (an `Mcol`, a
//! `CollisionSet`, a `Regn`), so that every later access returns the same
//! array without copying again. The copy's memory is an immutable
//! `bytes` object, so numpy refuses to make the array writeable again.
//!
//! In: [`Rows::read`] reads an `(N, 3)` or `(3,)` array-like of
//! any real dtype (a `(3,)` is one row, broadcast to every query), copied
//! out of numpy's buffer (one `memcpy` when it is C-contiguous float32)
//! while the GIL is held. The queries then run with the GIL released on
//! memory of their own: another thread's `ndarray.resize(refcheck=False)`
//! frees the array's buffer whatever borrows or buffer exports it has (a
//! weak reference is the only thing numpy checks), so reading the buffer
//! in place would read freed memory.

use glam::Vec3;
use numpy::{AllowTypeChange, Element, PyArray2, PyArrayLikeDyn, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use zerocopy::{Immutable, IntoBytes};

/// A cached read-only array of rows (see [`frozen`]).
pub type Cached<T> = PyOnceLock<Py<PyArray2<T>>>;

/// The read-only `(rows, K)` numpy array of `rows` cached in `cell`,
/// made on the first call: a copy of `rows` in an immutable `bytes`
/// object (`numpy.frombuffer`), so that neither the array nor its base
/// can be made writeable. `rows` must be what every call passes for
/// this `cell` (the frozen owner's data, which never changes).
pub fn frozen<'py, T, const K: usize>(
    py: Python<'py>,
    cell: &Cached<T>,
    rows: &[[T; K]],
) -> PyResult<Bound<'py, PyArray2<T>>>
where
    T: Element + IntoBytes + Immutable,
{
    let array = cell.get_or_try_init(py, || -> PyResult<_> {
        let bytes = pyo3::types::PyBytes::new(py, rows.as_bytes());
        let flat = py
            .import("numpy")?
            .getattr("frombuffer")?
            .call1((bytes, numpy::dtype::<T>(py)))?;
        let shaped = flat.call_method1("reshape", (rows.len(), K))?;
        Ok(shaped.cast_into::<PyArray2<T>>()?.unbind())
    })?;
    Ok(array.bind(py).clone())
}

/// Clears the array's `writeable` flag.
pub fn read_only(array: &Bound<'_, PyAny>) -> PyResult<()> {
    array.getattr("flags")?.setattr("writeable", false)
}

/// The rows of one batch argument, copied while the GIL is held (module
/// docs): `(N, 3)` rows, or one `(3,)` row broadcast to every query.
pub struct Rows {
    flat: Vec<f32>,
}

/// A batch argument converted to float32 (holds a borrow of numpy's
/// buffer: never across a release of the GIL).
type Coords<'py> = PyArrayLikeDyn<'py, f32, AllowTypeChange>;

impl Rows {
    /// Reads a batch argument (any real dtype) as float32 rows: converted,
    /// checked to be `(N, 3)` or `(3,)`, and copied. The borrow of numpy's
    /// buffer ends here, with the GIL still held: rust-numpy finds a borrow
    /// by the array's data pointer, which a resize moves, and releasing a
    /// borrow it cannot find aborts the process.
    pub fn read(array: &Bound<'_, PyAny>, what: &str) -> PyResult<Self> {
        let a: Coords<'_> = array.extract().map_err(|_| {
            PyValueError::new_err(format!(
                "{what}: expected an array of numbers, shape (N, 3) or (3,)"
            ))
        })?;
        if !matches!(a.shape(), [3] | [_, 3]) {
            return Err(PyValueError::new_err(format!(
                "{what}: expected shape (N, 3) or (3,), got {:?}",
                a.shape()
            )));
        }
        let flat = match a.as_slice() {
            Ok(flat) => flat.to_vec(),
            Err(_) => a.as_array().iter().copied().collect(),
        };
        Ok(Rows { flat })
    }

    /// How many rows the argument holds.
    pub fn len(&self) -> usize {
        self.flat.len() / 3
    }

    /// Row `i` (row 0 for a broadcast argument).
    #[inline]
    pub fn at(&self, i: usize) -> Vec3 {
        let i = if self.len() == 1 { 0 } else { i };
        Vec3::from_slice(&self.flat[3 * i..3 * i + 3])
    }
}

/// Every row of an `(N, 3)` or `(3,)` argument as `Vec3`s.
pub fn points(array: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<Vec3>> {
    let rows = Rows::read(array, what)?;
    Ok((0..rows.len()).map(|i| rows.at(i)).collect())
}

/// The row count of a batch whose arguments have `lens` rows: all equal,
/// or 1 (broadcast).
pub fn batch_rows(lens: &[(usize, &str)]) -> PyResult<usize> {
    let n = lens.iter().map(|l| l.0).max().unwrap_or(0);
    match lens.iter().find(|(len, _)| *len != n && *len != 1) {
        Some((len, what)) => Err(PyValueError::new_err(format!(
            "{what}: {len} rows where the other arguments have {n}"
        ))),
        None => Ok(n),
    }
}

/// `(N,)` or scalar values as f32s, converted from any real dtype.
pub fn scalars(array: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<f32>> {
    let a: PyArrayLikeDyn<'_, f32, AllowTypeChange> = array.extract().map_err(|_| {
        PyValueError::new_err(format!(
            "{what}: expected a number or an array of shape (N,)"
        ))
    })?;
    match a.shape().len() {
        0 | 1 => Ok(a.as_array().iter().copied().collect()),
        _ => Err(PyValueError::new_err(format!(
            "{what}: expected shape (N,) or a scalar, got {:?}",
            a.shape()
        ))),
    }
}

/// A fresh `(n, 3)` f32 array from rows.
pub fn rows3<'py>(py: Python<'py>, rows: Vec<[f32; 3]>) -> PyResult<Bound<'py, PyArray2<f32>>> {
    rows_of(py, rows.into_iter().flatten().collect())
}

/// A fresh `(len / 3, 3)` f32 array that takes over `flat` (no copy).
pub fn rows_of<'py>(py: Python<'py>, flat: Vec<f32>) -> PyResult<Bound<'py, PyArray2<f32>>> {
    use numpy::PyArrayMethods;
    let n = flat.len() / 3;
    numpy::PyArray1::from_vec(py, flat).reshape([n, 3])
}

/// A fresh read-only `(n, 3)` uint32 array of 16-bit triangle rows:
/// every array of indices the package gives is uint32 (docs/python.md,
/// "Index dtypes"), whatever width the file stores.
pub fn triangles_u32<'py>(
    py: Python<'py>,
    rows: &[[u16; 3]],
) -> PyResult<Bound<'py, PyArray2<u32>>> {
    use numpy::PyArrayMethods;
    let flat: Vec<u32> = rows.as_flattened().iter().map(|&i| u32::from(i)).collect();
    let array = numpy::PyArray1::from_vec(py, flat).reshape([rows.len(), 3])?;
    read_only(array.as_any())?;
    Ok(array)
}

/// A fresh read-only uint32 array of 16-bit indices (as
/// [`triangles_u32`]).
pub fn indices_u32<'py>(
    py: Python<'py>,
    items: &[u16],
) -> PyResult<Bound<'py, numpy::PyArray1<u32>>> {
    let wide: Vec<u32> = items.iter().map(|&i| u32::from(i)).collect();
    let array = numpy::PyArray1::from_vec(py, wide);
    read_only(array.as_any())?;
    Ok(array)
}

/// One field of a structured array: name, numpy format (little-endian),
/// byte offset in the record.
pub type Field = (&'static str, &'static str, usize);

/// A read-only numpy structured array of `count` records of `itemsize`
/// bytes laid out in `data` (little-endian fields as `fields` says).
pub fn structured<'py>(
    py: Python<'py>,
    fields: &[Field],
    itemsize: usize,
    data: Vec<u8>,
) -> PyResult<Bound<'py, PyAny>> {
    let np = py.import("numpy")?;
    let spec = pyo3::types::PyDict::new(py);
    spec.set_item("names", fields.iter().map(|f| f.0).collect::<Vec<_>>())?;
    spec.set_item("formats", fields.iter().map(|f| f.1).collect::<Vec<_>>())?;
    spec.set_item("offsets", fields.iter().map(|f| f.2).collect::<Vec<_>>())?;
    spec.set_item("itemsize", itemsize)?;
    let dtype = np.getattr("dtype")?.call1((spec,))?;
    let bytes = pyo3::types::PyBytes::new(py, &data);
    // frombuffer over immutable bytes is read-only already.
    np.getattr("frombuffer")?.call1((bytes, dtype))
}
