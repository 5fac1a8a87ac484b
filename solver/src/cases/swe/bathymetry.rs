//! Bed elevations from an ESRI ASCII grid (`.asc`: a header of `ncols`, `nrows`, `xllcorner`,
//! `yllcorner`, `cellsize`, optional `NODATA_value`, then `nrows` rows of `ncols` values, the
//! northernmost row first), as GIS tools and `meshtool` write them. Values are elevations in
//! metres, positive up; the solver's H is their negative.

use std::path::Path;

/// A bathymetry grid: cells per axis, lower-left corner, cell size, elevations x fastest from
/// the south (row 0 is the southernmost).
#[derive(Clone, Debug, PartialEq)]
pub struct Bathymetry {
    pub cells: [usize; 2],
    pub corner: [f64; 2],
    pub cellsize: f64,
    pub elevation: Vec<f64>,
}

/// Read and check an ESRI ASCII grid; errors name the file, the line and what is wrong.
pub fn read(path: &Path) -> Result<Bathymetry, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    parse(&path.display().to_string(), &text)
}

/// Parse and check the text of an ESRI ASCII grid; errors name the file `name` and the line.
pub fn parse(name: &str, text: &str) -> Result<Bathymetry, String> {
    let at = |line: usize, what: String| format!("{name} line {}: {what}", line + 1);
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()).peekable();
    let mut header = std::collections::HashMap::new();
    while let Some(&(n, l)) = lines.peek() {
        let mut parts = l.split_whitespace();
        let key = parts.next().unwrap_or("").to_ascii_lowercase();
        const KEYS: [&str; 6] = ["ncols", "nrows", "xllcorner", "yllcorner", "cellsize", "nodata_value"];
        if !KEYS.contains(&key.as_str()) {
            break;
        }
        let value: f64 = parts
            .next()
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| at(n, format!("`{key}` needs a number")))?;
        header.insert(key, (n, value));
        lines.next();
    }
    let need = |k: &str| {
        header.get(k).map(|&(_, v)| v).ok_or_else(|| {
            format!(
                "{}: the header has no `{k}` (an ESRI ASCII grid starts with ncols, nrows, xllcorner, yllcorner, cellsize)",
                name
            )
        })
    };
    let (nx, ny) = (need("ncols")?, need("nrows")?);
    if !(nx >= 1.0 && ny >= 1.0 && nx.fract() == 0.0 && ny.fract() == 0.0) {
        return Err(format!("{name}: ncols and nrows must be positive integers, got {nx}, {ny}"));
    }
    let (nx, ny) = (nx as usize, ny as usize);
    let cellsize = need("cellsize")?;
    if cellsize.is_nan() || cellsize <= 0.0 {
        return Err(format!("{name}: cellsize must be positive, got {cellsize}"));
    }
    let corner = [need("xllcorner")?, need("yllcorner")?];
    let nodata = header.get("nodata_value").map(|&(_, v)| v);
    let mut rows: Vec<Vec<f64>> = Vec::with_capacity(ny);
    for (n, l) in lines {
        let row: Vec<f64> = l
            .split_whitespace()
            .map(|v| v.parse::<f64>().map_err(|_| at(n, format!("`{v}` is not a number"))))
            .collect::<Result<_, _>>()?;
        if row.len() != nx {
            return Err(at(n, format!("{} values, ncols says {nx}", row.len())));
        }
        if let Some(bad) = row.iter().find(|v| !v.is_finite() || Some(**v) == nodata) {
            return Err(at(n, format!("{bad} (no data or not finite): every cell needs an elevation")));
        }
        rows.push(row);
    }
    if rows.len() != ny {
        return Err(format!("{name}: {} rows of values, nrows says {ny}", rows.len()));
    }
    // The file lists the northernmost row first; the grid counts from the south.
    let elevation = rows.into_iter().rev().flatten().collect();
    Ok(Bathymetry {
        cells: [nx, ny],
        corner,
        cellsize,
        elevation,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("b.asc");
        std::fs::write(&p, text).unwrap();
        (dir, p)
    }

    #[test]
    fn reads_a_grid_south_row_first_and_names_each_fault() {
        let head = "ncols 3\nnrows 2\nxllcorner 10\nyllcorner 20\ncellsize 5\nNODATA_value -9999\n";
        let (_d, p) = write(&format!("{head}1 2 3\n4 5 6\n"));
        let b = read(&p).unwrap();
        assert_eq!(b.cells, [3, 2]);
        assert_eq!(b.elevation, vec![4.0, 5.0, 6.0, 1.0, 2.0, 3.0]);
        let fault = |text: &str, needle: &str| {
            let (_d, p) = write(text);
            let e = read(&p).unwrap_err();
            assert!(e.contains(needle) && e.contains("b.asc"), "{needle}: {e}");
        };
        fault("nrows 2\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2\n", "no `ncols`");
        fault(&format!("{head}1 2 3\n4 5\n"), "line 8: 2 values, ncols says 3");
        fault(&format!("{head}1 2 3\n4 NaN 6\n"), "line 8: NaN");
        fault(&format!("{head}1 2 3\n4 -9999 6\n"), "no data");
        fault(&format!("{head}1 2 3\n"), "1 rows of values, nrows says 2");
        fault(&format!("{head}1 x 3\n4 5 6\n"), "`x` is not a number");
    }
}
