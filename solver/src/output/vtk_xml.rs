//! The VTK XML writer of the run's fields (`.vti` ImageData, `.vtu` UnstructuredGrid): inline
//! `binary` (base64) data arrays with UInt64 headers, compressed in blocks of 32 KiB, each
//! block compressed by itself on the rayon pool (VTK's XML format compresses per block:
//! header `[nb][nu][np][nc_1]..[nc_nb]`, then the blocks). The layout is the one vtkio wrote
//! before (the header and the blocks base64-encoded separately, the last block partial, possibly
//! empty), so that VTK, ParaView, vtkio and `scripts/viz/vti.py` read it alike; the bytes depend on
//! the data and the options only, never on the number of threads.

use crate::framework::config::{Codec, OutputSection, Precision};
use crate::framework::field::{Centring, Field, Geometry};
use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine as _;
use rayon::prelude::*;
use std::fmt::Write as _;
use std::io::Write;

/// Block size before compression (VTK's default, and vtkio's).
const BLOCK: usize = 32768;
/// Bytes per base64 task: a multiple of 3, so the chunks' encodings concatenate to the whole's.
const B64_CHUNK: usize = 3 << 16;

/// How the data arrays are encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VtkOptions {
    pub codec: Codec,
    /// zlib level 1..=9 (ignored by the others).
    pub level: u32,
    /// The fields' values written as Float32 (an f32 run's lose nothing: half the bytes to
    /// compress and store), not Float64. The grid's own arrays (points, cells) are unchanged.
    pub single: bool,
}

impl Default for VtkOptions {
    fn default() -> Self {
        VtkOptions {
            codec: Codec::Zlib,
            level: 5,
            single: false,
        }
    }
}

/// The case file's `[output]` choices of encoding.
impl OutputSection {
    /// How the VTK files' arrays are encoded, for a run in `run` precision.
    pub fn vtk_options(&self, run: Precision) -> VtkOptions {
        let d = VtkOptions::default();
        VtkOptions {
            codec: self.compression,
            level: self.compression_level.unwrap_or(d.level),
            single: self.precision.unwrap_or(run) == Precision::F32,
        }
    }
}

impl VtkOptions {
    /// VTK's type name of the fields' values.
    pub fn field_type(&self) -> &'static str {
        if self.single {
            <f32 as Element>::NAME
        } else {
            <f64 as Element>::NAME
        }
    }
}

/// A value type of a VTK data array.
trait Element: Copy + Send + Sync {
    const NAME: &'static str;
    const SIZE: usize;
    fn put(self, out: &mut Vec<u8>);
    fn f64(self) -> f64;
}

/// The element impls of the little-endian number types: VTK's name, and the value as f64 (for
/// the ranges; exact for every type but u64 past 2^53).
macro_rules! element {
    ($t:ty, $name:literal) => {
        impl Element for $t {
            const NAME: &'static str = $name;
            const SIZE: usize = std::mem::size_of::<$t>();
            fn put(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn f64(self) -> f64 {
                self as f64
            }
        }
    };
}
element!(f64, "Float64");
element!(f32, "Float32");
element!(u64, "UInt64");
element!(u8, "UInt8");

/// Little-endian bytes of `values`.
fn bytes_of<T: Element>(values: &[T]) -> Vec<u8> {
    let mut out = Vec::with_capacity(values.len() * T::SIZE);
    for &v in values {
        v.put(&mut out);
    }
    out
}

/// (min, max) as vtkio computes it (NaNs skipped by f64::min/max); None when empty.
fn range<T: Element>(values: &[T]) -> Option<(f64, f64)> {
    if values.is_empty() {
        return None;
    }
    Some(
        values
            .par_chunks(1 << 16)
            .map(|c| {
                c.iter().fold((f64::NAN, f64::NAN), |(a, b), v| {
                    let v = v.f64();
                    (a.min(v), b.max(v))
                })
            })
            .reduce(|| (f64::NAN, f64::NAN), |(a, b), (c, d)| (a.min(c), b.max(d))),
    )
}

/// Base64 of `bytes`, encoded in parallel chunks (the same text as one encoding).
fn base64_chunks(bytes: &[u8]) -> Vec<String> {
    bytes.par_chunks(B64_CHUNK).map(|c| B64.encode(c)).collect()
}

/// The encoded payload of one data array: base64 pieces to write in order.
fn encode<T: Element>(values: &[T], opts: VtkOptions) -> std::io::Result<Vec<String>> {
    let n = values.len() * T::SIZE;
    if opts.codec == Codec::None {
        // [n][data] as one base64 stream.
        let mut raw = Vec::with_capacity(8 + n);
        raw.extend_from_slice(&(n as u64).to_le_bytes());
        raw.extend_from_slice(&bytes_of(values));
        return Ok(base64_chunks(&raw));
    }
    // vtkio's block count: a final partial block, empty when n is a multiple of the block size
    // (VTK reads both).
    let per_block = BLOCK / T::SIZE;
    let nb = n / BLOCK + 1;
    let blocks: Vec<Vec<u8>> = (0..nb)
        .into_par_iter()
        .map(|i| {
            let lo = (i * per_block).min(values.len());
            let hi = ((i + 1) * per_block).min(values.len());
            let raw = bytes_of(&values[lo..hi]);
            match opts.codec {
                Codec::Zlib => {
                    let mut e = flate2::write::ZlibEncoder::new(
                        Vec::with_capacity(raw.len() / 2 + 64),
                        flate2::Compression::new(opts.level.clamp(1, 9)),
                    );
                    e.write_all(&raw)?;
                    e.finish()
                }
                Codec::Lz4 => Ok(lz4_flex::block::compress(&raw)),
                Codec::None => unreachable!(),
            }
        })
        .collect::<std::io::Result<_>>()?;
    let mut header = Vec::with_capacity(8 * (3 + nb));
    for v in [nb, BLOCK, n % BLOCK].into_iter().chain(blocks.iter().map(Vec::len)) {
        header.extend_from_slice(&(v as u64).to_le_bytes());
    }
    let mut pieces = vec![B64.encode(&header)];
    let data = blocks.concat();
    drop(blocks);
    pieces.extend(base64_chunks(&data));
    Ok(pieces)
}

/// One `<DataArray>` element, written to `w`.
fn data_array<T: Element>(
    w: &mut dyn Write,
    name: &str,
    components: usize,
    values: &[T],
    opts: VtkOptions,
) -> std::io::Result<()> {
    let mut tag = format!("<DataArray type=\"{}\" Name=\"{}\"", T::NAME, xml_escape(name));
    if components != 1 {
        let _ = write!(tag, " NumberOfComponents=\"{components}\"");
    }
    tag += " format=\"binary\"";
    if let Some((lo, hi)) = range(values) {
        let _ = write!(tag, " RangeMin=\"{lo}\" RangeMax=\"{hi}\"");
    }
    tag += ">";
    w.write_all(tag.as_bytes())?;
    for piece in encode(values, opts)? {
        w.write_all(piece.as_bytes())?;
    }
    w.write_all(b"</DataArray>")
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A field's values as VTK writes them: 2-component vectors get a zero third component, so
/// that ParaView's glyphs and stream tracers take them as vectors.
fn vtk_values(f: &Field) -> (usize, std::borrow::Cow<'_, [f64]>) {
    match f.components {
        2 => {
            let mut padded = vec![0.0; f.values.len() / 2 * 3];
            padded.par_chunks_mut(3).zip(f.values.par_chunks(2)).for_each(|(o, v)| {
                o[0] = v[0];
                o[1] = v[1];
            });
            (3, padded.into())
        }
        c => (c, f.values.as_slice().into()),
    }
}

/// `<PointData>` or `<CellData>` with the fields of this centring (nothing if there are none):
/// the first scalar and the first vector are the active ones.
fn attributes(w: &mut dyn Write, tag: &str, fields: &[&Field], opts: VtkOptions) -> std::io::Result<()> {
    if fields.is_empty() {
        return Ok(());
    }
    let mut open = format!("<{tag}");
    if let Some(s) = fields.iter().find(|f| f.components == 1) {
        let _ = write!(open, " Scalars=\"{}\"", xml_escape(&s.name));
    }
    if let Some(v) = fields.iter().find(|f| f.components != 1) {
        let _ = write!(open, " Vectors=\"{}\"", xml_escape(&v.name));
    }
    open += ">";
    w.write_all(open.as_bytes())?;
    for f in fields {
        let (components, values) = vtk_values(f);
        if opts.single {
            let single: Vec<f32> = values.par_iter().map(|&v| v as f32).collect();
            data_array(w, &f.name, components, &single, opts)?;
        } else {
            data_array(w, &f.name, components, &values, opts)?;
        }
    }
    w.write_all(format!("</{tag}>").as_bytes())
}

/// The VTKFile element's opening tag for data sets of `kind`.
fn header(w: &mut dyn Write, kind: &str, opts: VtkOptions) -> std::io::Result<()> {
    let compressor = match opts.codec {
        Codec::Zlib => " compressor=\"vtkZLibDataCompressor\"",
        Codec::Lz4 => " compressor=\"vtkLZ4DataCompressor\"",
        Codec::None => "",
    };
    write!(
        w,
        "<VTKFile type=\"{kind}\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\"{compressor}>"
    )
}

/// The whole file of `fields` on `geometry` (checked by the caller for sizes).
pub fn write(w: &mut dyn Write, geometry: &Geometry, fields: &[Field], opts: VtkOptions) -> std::io::Result<()> {
    let m = match geometry {
        Geometry::Image {
            points,
            origin,
            spacing,
        } => return write_image_piece(w, *origin, *spacing, points.map(|n| [0, n - 1]), fields, opts),
        Geometry::Tets(m) => m,
    };
    header(w, "UnstructuredGrid", opts)?;
    let of = |c: Centring| fields.iter().filter(|f| f.centring == c).collect::<Vec<_>>();
    let cells = m.num_cells();
    write!(
        w,
        "<UnstructuredGrid><Piece NumberOfPoints=\"{}\" NumberOfCells=\"{cells}\">",
        m.nodes.len()
    )?;
    attributes(w, "PointData", &of(Centring::Point), opts)?;
    attributes(w, "CellData", &of(Centring::Cell), opts)?;
    w.write_all(b"<Points>")?;
    data_array(w, "Points", 3, m.nodes.as_flattened(), opts)?;
    w.write_all(b"</Points><Cells>")?;
    let connectivity: Vec<u64> = m.topo.cells.par_iter().flatten().map(|&v| v as u64).collect();
    data_array(w, "connectivity", 1, &connectivity, opts)?;
    let offsets: Vec<u64> = (1..=cells as u64).into_par_iter().map(|i| 4 * i).collect();
    data_array(w, "offsets", 1, &offsets, opts)?;
    data_array(w, "types", 1, &vec![10u8; cells], opts)?; // VTK_TETRA
    w.write_all(b"</Cells></Piece></UnstructuredGrid></VTKFile>")
}

/// VTK's extent text: first and last point index per axis.
pub fn extent_text(extent: [[usize; 2]; 3]) -> String {
    extent.map(|[a, b]| format!("{a} {b}")).join(" ")
}

/// An image file of `fields` on the points `extent` (first and last point index per axis): the
/// whole grid (from 0), or a piece of a parallel image (`.pvti`), whose extent lies inside the
/// whole grid's and whose origin is the whole grid's first point.
pub fn write_image_piece(
    w: &mut dyn Write,
    origin: [f64; 3],
    spacing: [f64; 3],
    extent: [[usize; 2]; 3],
    fields: &[Field],
    opts: VtkOptions,
) -> std::io::Result<()> {
    header(w, "ImageData", opts)?;
    let of = |c: Centring| fields.iter().filter(|f| f.centring == c).collect::<Vec<_>>();
    let extent = extent_text(extent);
    write!(
        w,
        "<ImageData WholeExtent=\"{extent}\" Origin=\"{} {} {}\" Spacing=\"{} {} {}\"><Piece Extent=\"{extent}\">",
        origin[0], origin[1], origin[2], spacing[0], spacing[1], spacing[2]
    )?;
    attributes(w, "PointData", &of(Centring::Point), opts)?;
    attributes(w, "CellData", &of(Centring::Cell), opts)?;
    w.write_all(b"</Piece></ImageData></VTKFile>")
}
