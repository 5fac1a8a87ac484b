//! Shallow water on the CPU: per step the point sources, the halo fill and the open sides
//! (`forcing.rs`, at the time the step starts), then every interior cell takes the Roe
//! contributions of its edges (`roe.rs`; rayon over rows), an explicit Euler update, and the dry
//! cells are brought to rest (depths that a draining cell would take below zero are clipped to
//! zero, and counted). A part of a decomposed run (`grid::parts`, one a rank) takes its
//! neighbours' rows at its halo's cadence and updates the halo rows still valid in between.

use super::roe::{edge, State};
use super::setup::{SweSetup, REACH};
use super::totals::{self, Ledger};
use crate::error::Result;
use crate::framework::{Clock, Simulation, Unhealthy};
use crate::grid::{halo, parts, BoundarySet, FaceBc};
use crate::output::Field;
use crate::real::{from_bytes, to_bytes, Real};
use rayon::prelude::*;

pub struct CpuSwe<R: Real> {
    /// The setup of the rows it holds: the whole grid's, or a part's (`setup.split`).
    pub setup: SweSetup,
    /// (h, q_x, q_y, hC), padded, one component after another.
    w: Vec<R>,
    /// The bed's depth H, padded, ghosts filled once, and its one-component grid.
    bed: Vec<R>,
    bed_grid: crate::grid::StructuredGrid,
    /// Water added by clipping and by the sources, the water at the start.
    pub ledger: Ledger,
    /// Steps since the start or the restart (the ghost rows arrive at the halo's cadence).
    steps: usize,
}

impl<R: Real> CpuSwe<R> {
    /// The simulation of `setup`'s rows: its interior initial state and padded bed.
    pub fn new(setup: SweSetup, initial: &[f64], bed: &[f64]) -> Self {
        let g = &setup.grid;
        let w = g.pad(&initial.iter().map(|&v| R::of(v)).collect::<Vec<_>>());
        let bed_grid = crate::grid::StructuredGrid { components: 1, ..g.clone() };
        let bed = bed.iter().map(|&v| R::of(v)).collect();
        let rounded = initial_rounded::<R>(initial);
        let ledger = Ledger {
            start_water: totals::water(&setup, &rounded),
            start_pollutant: totals::pollutant(&setup, &rounded),
            conc_bounds: totals::conc_bounds(&setup, &rounded),
            ..Ledger::default()
        };
        CpuSwe { setup, w, bed, bed_grid, ledger, steps: 0 }
    }

    /// The state at padded index p in the frame of axis a.
    fn state(&self, p: usize, a: usize) -> State<R> {
        let len = self.setup.grid.padded_len();
        [self.w[p], self.w[(1 + a) * len + p], self.w[(2 - a) * len + p], self.w[3 * len + p]]
    }

    fn interior(&self) -> Vec<R> {
        self.setup.grid.unpad(&self.w)
    }

    /// The mass fluxes of the edges below and above padded cell p along each axis (0 on an
    /// axis with one cell), and the Roe momentum contributions of those edges to p.
    fn edges_of(&self, p: usize) -> ([[R; 2]; 2], [[[R; 4]; 2]; 2]) {
        let s = &self.setup;
        let (g, dry) = (R::of(s.gravity), R::of(s.dry));
        let strides = [1, s.grid.padded()[0]];
        let (mut phi, mut change) = ([[R::zero(); 2]; 2], [[[R::zero(); 4]; 2]; 2]);
        for a in s.axes() {
            let (below, above) = (p - strides[a], p + strides[a]);
            let (_, lower, phi_lower) = edge(self.state(below, a), self.bed[below], self.state(p, a), self.bed[p], g, dry);
            let (upper, _, phi_upper) = edge(self.state(p, a), self.bed[p], self.state(above, a), self.bed[above], g, dry);
            phi[a] = [phi_lower, phi_upper];
            change[a] = [lower, upper];
        }
        (phi, change)
    }

    /// The concentration of padded cell p: hC / h, 0 where there is no water.
    fn conc(&self, p: usize) -> R {
        let len = self.setup.grid.padded_len();
        concentration(self.w[p], self.w[3 * len + p])
    }

    /// The donors' shares of rows `rows` (padded, 1 elsewhere): `transport`'s theta of each
    /// cell and x ghost, a periodic ghost's that of the cell it copies, a slab's ghost rows
    /// their own (as their owner finds it), 1 for the ghosts of the other faces (the water
    /// beyond them is not counted).
    fn shares(&self, rows: std::ops::Range<isize>, lam: &[R; 2]) -> Vec<R> {
        let s = &self.setup;
        let (nx, ny) = (s.grid.n[0] as isize, s.grid.n[1] as isize);
        let at: Vec<(isize, isize)> = rows.flat_map(|j| (-1..=nx).map(move |i| (i, j))).collect();
        let values: Vec<R> = at
            .par_iter()
            .map(|&(i, j)| {
                let Some((i, j)) = share_source(&s.bc, [nx, ny], i, j) else { return R::one() };
                let p = s.grid.at(i, j, 0);
                let (phi, _) = self.edges_of(p);
                share(self.w[p], outflow(&phi, lam))
            })
            .collect();
        let mut theta = vec![R::one(); s.grid.padded_len()];
        for (&(i, j), v) in at.iter().zip(values) {
            theta[s.grid.at(i, j, 0)] = v;
        }
        theta
    }

    /// The state of padded cell p after the step: the momentum by the Roe fluctuations, the
    /// water and the pollutant by `transport`.
    fn update(&self, p: usize, theta: &[R], lam: &[R; 2]) -> [R; 4] {
        let s = &self.setup;
        let len = s.grid.padded_len();
        let strides = [1, s.grid.padded()[0]];
        let mut w: [R; 4] = std::array::from_fn(|k| self.w[k * len + p]);
        let (phi, change) = self.edges_of(p);
        let mut inflow = [[(R::zero(), R::zero()); 2]; 2];
        for a in s.axes() {
            let (below, above) = (p - strides[a], p + strides[a]);
            inflow[a] = [(theta[below], self.conc(below)), (theta[above], self.conc(above))];
        }
        for a in s.axes() {
            // An edge whose donor gives only its share theta < 1 of lam Phi (it holds no more)
            // moves that share of momentum too: its contributions over theta dt (Bollermann et
            // al.'s draining time step); 1 everywhere else, so the Roe step is unchanged.
            let t = edge_shares(&phi[a], [inflow[a][0].0, theta[p], inflow[a][1].0]);
            let [lower, upper] = change[a];
            // Frame components (q_n, q_t) back to (q_x, q_y).
            w[1 + a] = w[1 + a] - lam[a] * (t[0] * lower[1] + t[1] * upper[1]);
            w[2 - a] = w[2 - a] - lam[a] * (t[0] * lower[2] + t[1] * upper[2]);
        }
        let (h, hc) = transport(w[0], w[3], &phi, &inflow, theta[p], lam);
        w[0] = h;
        w[3] = hc;
        w
    }

    /// The water and the pollutant through the grid's faces (not periodic ones, not those
    /// beside other slabs) over the step, owned cells: volume in, volume out, pollutant in,
    /// pollutant out, as `transport` moves them.
    fn boundary_flux(&self, theta: &[R], lam: &[R; 2]) -> [f64; 4] {
        let s = &self.setup;
        let (nx, ny) = (s.grid.n[0] as isize, s.grid.n[1] as isize);
        let area = s.grid.h[0] * s.grid.h[1];
        let (g, dry) = (R::of(s.gravity), R::of(s.dry));
        let mut sum = [0.0; 4];
        for a in s.axes() {
            for side in 0..2 {
                if matches!(s.bc.faces[a][side], FaceBc::Periodic | FaceBc::Neighbour) {
                    continue;
                }
                let edge_at = if side == 0 { 0 } else { s.grid.n[a] as isize - 1 };
                let ghost_at = if side == 0 { -1 } else { s.grid.n[a] as isize };
                for r in 0..if a == 0 { ny } else { nx } {
                    let idx = |v: isize| if a == 0 { s.grid.at(v, r, 0) } else { s.grid.at(r, v, 0) };
                    let (p, gp) = (idx(edge_at), idx(ghost_at));
                    let (lo, hi) = if side == 0 { (gp, p) } else { (p, gp) };
                    let phi = edge(self.state(lo, a), self.bed[lo], self.state(hi, a), self.bed[hi], g, dry).2;
                    let [in_w, out_w, in_c, out_c] = crossing(phi, side, lam[a], [theta[gp], theta[p]], [self.conc(gp), self.conc(p)]);
                    for (t, v) in sum.iter_mut().zip([in_w, out_w, in_c, out_c]) {
                        *t += v.f64() * area;
                    }
                }
            }
        }
        sum
    }

    /// Manning friction, semi-implicit: q / (1 + dt g n^2 |u| / h^(4/3)) in wet cells.
    fn friction(&mut self, dt: f64, cells: &[usize]) {
        let s = &self.setup;
        let len = s.grid.padded_len();
        let k = dt * s.gravity * s.manning * s.manning;
        // k = dt g n^2
        for &p in cells {
            let h = self.w[p].f64();
            if h <= s.dry {
                continue;
            }
            let (qx, qy) = (self.w[len + p].f64(), self.w[2 * len + p].f64());
            let factor = R::of(manning_factor(k, h, (qx * qx + qy * qy).sqrt() / h));
            self.w[len + p] = self.w[len + p] * factor;
            self.w[2 * len + p] = self.w[2 * len + p] * factor;
        }
    }
}

impl<R: Real> Simulation for CpuSwe<R> {
    /// cfl / max over cells of sum_a (|u_a| + sqrt(g h)) / h_a; dry cells do not count.
    fn stable_dt(&mut self, cfl: f64) -> Result<f64> {
        let s = &self.setup;
        let (len, dry) = (s.grid.padded_len(), s.dry);
        let rate = s
            .cells()
            .par_iter()
            .map(|&p| {
                let h = self.w[p].f64();
                if h <= dry {
                    return 0.0;
                }
                let c = (s.gravity * h).sqrt();
                s.axes()
                    .iter()
                    .map(|&a| ((self.w[(1 + a) * len + p].f64() / h).abs() + c) / s.grid.h[a])
                    .sum::<f64>()
            })
            .reduce(|| 0.0, f64::max);
        Ok(if rate > 0.0 { cfl / rate } else { f64::INFINITY })
    }

    fn step(&mut self, clock: &Clock, dt: f64) -> Result<()> {
        let s = &self.setup;
        let (len, dry) = (s.grid.padded_len(), R::of(s.dry));
        // Ghost-cell expansion: the ghost rows arrive every `ghost_rows` steps, and in between
        // this part updates them again as their owner does, `REACH` rows fewer each step.
        let ny = s.grid.n[1] as isize;
        let (rows, arrive) = s.split.updated(self.steps, s.grid.n[1]);
        let (lo, hi) = (rows.start, rows.end);
        // The sources change the state the updated rows read: theirs, and `REACH` rows beyond.
        let read = s.split.widened(&rows, REACH as isize);
        s.forcing.add_sources(&s.grid, &mut self.w, clock.time, dt, &mut self.ledger.sources, read);
        halo::fill(&s.grid, &s.bc, &mut self.w);
        // The x ghosts of the ghost rows updated, and of the row beyond them (the donors'
        // shares of its cells are read), as their owner fills them.
        let filled = s.split.widened(&rows, 1);
        let ghost_rows: Vec<isize> = (filled.start..0).chain(ny..filled.end).collect();
        halo::fill_x_of_rows(&s.grid, &s.bc, &mut self.w, &ghost_rows);
        s.forcing.fill_open(&s.grid, &self.bed, &mut self.w, dry, clock.time, filled);
        if arrive {
            parts::exchange(s.link.as_ref(), &s.grid, &mut self.w);
        }
        self.steps += 1;
        let axes = s.axes();
        let lam = [R::of(dt / s.grid.h[0]), R::of(dt / s.grid.h[1])];
        // The donors' shares (`transport`) of the updated rows and the ring around them.
        let ring = if axes.contains(&1) { lo - 1..hi + 1 } else { lo..hi };
        let theta = self.shares(ring, &lam);
        let cells = s.cells_in_rows(lo..hi);
        let updated: Vec<[R; 4]> = cells.par_iter().map(|&p| self.update(p, &theta, &lam)).collect();
        let crossed = self.boundary_flux(&theta, &lam);
        for (total, c) in self.ledger.boundary.iter_mut().zip(crossed) {
            *total += c;
        }
        let mut clipped = 0.0;
        let area = s.grid.h[0] * s.grid.h[1];
        let thin = R::of(s.thin);
        let thin4 = thin * thin * thin * thin;
        let owned = |p: usize| (0..ny).contains(&s.grid.row_of(p));
        for (&p, mut w) in cells.iter().zip(updated) {
            if w[0] < R::zero() && owned(p) {
                clipped -= w[0].f64() * area;
            }
            if w[0] <= dry {
                // Dry: no depth below zero, no velocity; the pollutant stays (hC <= C_max h).
                w = [w[0].max(R::zero()), R::zero(), R::zero(), w[3]];
            } else if w[0] < thin {
                // Nearly dry: q / h would blow up; Kurganov & Petrova's desingularization,
                // u = sqrt(2) h q / sqrt(h^4 + max(h^4, eps^4)), which is q / h from eps up.
                // The momentum only: hC moves with the water and keeps its concentration.
                let h4 = w[0] * w[0] * w[0] * w[0];
                let scale = R::of(std::f64::consts::SQRT_2) * w[0] * w[0] / (h4 + thin4).sqrt();
                for k in 1..3 {
                    w[k] = w[k] * scale;
                }
            }
            if w[0] > R::zero() && owned(p) {
                let c = (w[3] / w[0]).f64();
                let b = &mut self.ledger.conc_bounds;
                *b = [b[0].max(c), b[1].max(-c)];
            }
            for k in 0..4 {
                self.w[k * len + p] = w[k];
            }
        }
        self.ledger.clipped += clipped;
        if s.manning > 0.0 {
            self.friction(dt, &cells);
        }
        Ok(())
    }

    /// The first unsound interior cell, numbered in the whole grid.
    fn health(&mut self) -> Result<Option<Unhealthy>> {
        let values = self.interior();
        let n = self.setup.grid.points();
        let bad = (0..n).find(|&i| values[i] < R::zero() || (0..4).any(|k| !values[k * n + i].is_finite()));
        let offset = self.setup.split.slab.start * self.setup.grid.n[0];
        Ok(bad.map(|i| totals::unhealthy(offset + i, std::array::from_fn(|k| values[k * n + i].f64()))))
    }

    fn fields(&mut self, _clock: &Clock) -> Result<Vec<Field>> {
        let values: Vec<f64> = self.interior().iter().map(|v| v.f64()).collect();
        let bed: Vec<f64> = self.bed_grid.unpad(&self.bed).iter().map(|v| v.f64()).collect();
        Ok(totals::fields(&values, &bed, self.setup.dry))
    }

    fn save_state(&mut self) -> Result<Vec<u8>> {
        Ok(to_bytes(&self.interior()))
    }

    /// The depth of cell `cell` of its rows (x fastest) becomes NaN.
    fn inject_nan(&mut self, cell: usize) -> Result<bool> {
        let [nx, ny, _] = self.setup.grid.n;
        let (i, j) = (cell % nx, cell / nx);
        if j >= ny {
            return Ok(false);
        }
        let p = self.setup.grid.at(i as isize, j as isize, 0);
        self.w[p] = R::nan();
        Ok(true)
    }

    /// Its rows' interior state (component after component), the ghost rows to arrive at the
    /// next step.
    fn load_state(&mut self, bytes: &[u8]) -> Result<()> {
        let values = from_bytes::<R>(bytes);
        let values64: Vec<f64> = values.iter().map(|v| v.f64()).collect();
        self.ledger.start_water = totals::water(&self.setup, &values64);
        self.ledger.start_pollutant = totals::pollutant(&self.setup, &values64);
        self.ledger.boundary = [0.0; 4];
        self.ledger.conc_bounds = totals::conc_bounds(&self.setup, &values64);
        self.w = self.setup.grid.pad(&values);
        self.steps = 0;
        Ok(())
    }

    fn bytes_per_step(&self) -> f64 {
        totals::min_bytes_per_step(&self.setup, std::mem::size_of::<R>())
    }

    fn variant(&self) -> String {
        "roe-path-conservative".into()
    }

    /// Its rows' totals (`totals::TOTALS` reduces a decomposed run's).
    fn totals(&mut self) -> Result<Vec<(String, f64)>> {
        let values: Vec<f64> = self.interior().iter().map(|v| v.f64()).collect();
        let t = totals::totals(&self.setup, &values, &self.ledger);
        Ok(totals::with_bounds(t, self.ledger.conc_bounds))
    }
}

/// hC / h, 0 where there is no water. A true division: hC <= C h gives hC / h <= C when C = 1.
pub fn concentration<R: Real>(h: R, hc: R) -> R {
    if h > R::zero() {
        hc / h
    } else {
        R::zero()
    }
}

/// What a cell with edges' mass fluxes `phi` ([axis][below, above], along +axis) would give
/// away over the step: sum over axes of lam_a (max(-Phi_below, 0) + max(Phi_above, 0)).
pub fn outflow<R: Real>(phi: &[[R; 2]; 2], lam: &[R; 2]) -> R {
    let mut out = R::zero();
    for a in 0..2 {
        out = out + lam[a] * ((-phi[a][0]).max(R::zero()) + phi[a][1].max(R::zero()));
    }
    out
}

/// The share theta of its outflow a cell of depth h gives: all of it if it holds that much
/// water, else h / outflow (it gives all it holds, no more).
pub fn share<R: Real>(h: R, out: R) -> R {
    if out > h {
        h / out
    } else {
        R::one()
    }
}

/// Where the share of padded cell (i, j) of a grid of `n` cells is found: the cell itself, the
/// cell a periodic ghost copies, a slab's ghost row itself; None (share 1) for the ghosts of the
/// other faces.
pub fn share_source(bc: &BoundarySet, n: [isize; 2], mut i: isize, mut j: isize) -> Option<(isize, isize)> {
    if !(0..n[0]).contains(&i) {
        if bc.faces[0][usize::from(i >= n[0])] != FaceBc::Periodic {
            return None;
        }
        i = i.rem_euclid(n[0]);
    }
    if !(0..n[1]).contains(&j) {
        match bc.faces[1][usize::from(j >= n[1])] {
            FaceBc::Periodic => j = j.rem_euclid(n[1]),
            FaceBc::Neighbour => {}
            _ => return None,
        }
    }
    Some((i, j))
}

/// The shares of the donors of the edges below and above a cell along an axis (mass fluxes
/// `phi`), from the shares of the cell below, the cell, the cell above: 1 where nothing moves.
pub fn edge_shares<R: Real>(phi: &[R; 2], theta: [R; 3]) -> [R; 2] {
    let donor = |f: R, lo: R, hi: R| {
        if f > R::zero() {
            lo
        } else if f < R::zero() {
            hi
        } else {
            R::one()
        }
    };
    [donor(phi[0], theta[0], theta[1]), donor(phi[1], theta[1], theta[2])]
}

/// The water and the pollutant of a cell (h, hC) after the step (the momentum aside): each
/// edge's water moves with its mass flux Phi, given by the donor (upwind) cell, at most what it
/// holds: the donor's share theta (`share`) of lam Phi. The pollutant moves with it at the
/// donor's concentration C. The water, in flux form (x, then y):
///   h' = h - sum_a (G_above - G_below),   G = theta_donor lam Phi,
/// or, when the cell gives all it has (theta < 1), h' = sum_in G >= 0 (no clipping). The
/// pollutant as the combination it is,
///   hC' = C r + sum_in C_d theta_d lam |Phi|,   r = h - outflow (0 if theta < 1),
/// every term >= 0, weights adding up to r + sum_in theta_d lam |Phi| = h' (to rounding): in
/// exact arithmetic min C <= hC' / h' <= max C over the cell and its donors, a discrete maximum
/// principle. In floating point hC' is then bounded by m h', m the largest of C (if the cell
/// keeps water) and its donors' C_d: hC' changes by a rounding of h' at most, and hC' <= h',
/// hC' / h' <= 1 exactly when m <= 1 (rounding is monotone). The pollutant the cell keeps is
/// C r (hC itself when it gives nothing), the pollutant it gives is C theta lam |Phi| an edge,
/// so the total is conserved to round-off (hC - C r - C outflow is a rounding of C = hC / h).
/// `inflow` holds, per axis, (theta, C) of the cells below and above, `theta` the cell's.
pub fn transport<R: Real>(h: R, hc: R, phi: &[[R; 2]; 2], inflow: &[[(R, R); 2]; 2], theta: R, lam: &[R; 2]) -> (R, R) {
    let zero = R::zero();
    let out = outflow(phi, lam);
    let rest = if out > h { zero } else { h - out };
    let conc = concentration(h, hc);
    let (mut gained, mut pollutant) = (rest, if out == zero { hc } else { conc * rest });
    let mut bound = if rest > zero || out == zero { conc } else { zero };
    let mut depth = h;
    for a in 0..2 {
        let [(theta_lo, conc_lo), (theta_hi, conc_hi)] = inflow[a];
        let (f_lo, f_hi) = (lam[a] * phi[a][0], lam[a] * phi[a][1]);
        let g_lo = if phi[a][0] > zero { theta_lo * f_lo } else { theta * f_lo };
        let g_hi = if phi[a][1] > zero { theta * f_hi } else { theta_hi * f_hi };
        depth = depth - (g_hi - g_lo);
        // From below: Phi_below > 0; from above: Phi_above < 0.
        for (t, c, flux) in [(theta_lo, conc_lo, phi[a][0]), (theta_hi, conc_hi, -phi[a][1])] {
            let given = t * (lam[a] * flux.max(zero));
            gained = gained + given;
            pollutant = pollutant + c * given;
            if given > zero {
                bound = bound.max(c);
            }
        }
    }
    let depth = if out > h { gained } else { depth };
    (depth, pollutant.min(bound * depth.max(zero)))
}

/// The water and the pollutant crossing a face of the grid, edge mass flux `phi` (along +axis)
/// on side `side` (0: low): [water in, water out, pollutant in, pollutant out], the ghost's and
/// the cell's (theta, C) given, as `transport` moves them.
pub fn crossing<R: Real>(phi: R, side: usize, lam: R, theta: [R; 2], conc: [R; 2]) -> [R; 4] {
    let zero = R::zero();
    let into = if side == 0 { phi } else { -phi };
    let given_in = theta[0] * (lam * into.max(zero));
    let given_out = theta[1] * (lam * (-into).max(zero));
    [given_in, given_out, conc[0] * given_in, conc[1] * given_out]
}

/// Initial values as the backend holds them (rounded to R), in f64.
pub fn initial_rounded<R: Real>(initial: &[f64]) -> Vec<f64> {
    initial.iter().map(|&v| R::of(v).f64()).collect()
}

/// The semi-implicit Manning factor of the momentum, 1 / (1 + dt g n^2 |u| / h^(4/3)), with
/// k = dt g n^2.
pub fn manning_factor(k: f64, h: f64, speed: f64) -> f64 {
    1.0 / (1.0 + k * speed / h.powf(4.0 / 3.0))
}

#[cfg(test)]
mod tests {
    use super::manning_factor;

    /// Uniform flow on a flat bed slowed by friction alone: dq/dt = -g n^2 q^2 / h^(7/3), so
    /// 1/q = 1/q0 + g n^2 t / h^(7/3). The semi-implicit step adds exactly dt g n^2 / h^(7/3)
    /// to 1/q, so any number of steps lands on it to round-off.
    #[test]
    fn manning_friction_follows_its_ode() {
        let (g, n, h, q0, t) = (9.81, 0.03, 0.5f64, 0.4, 20.0);
        let exact = 1.0 / (1.0 / q0 + g * n * n * t / h.powf(7.0 / 3.0));
        let error = |steps: usize| {
            let dt = t / steps as f64;
            let q = (0..steps).fold(q0, |q, _| q * manning_factor(dt * g * n * n, h, q / h));
            (q - exact).abs() / exact
        };
        for steps in [1, 7, 200] {
            assert!(error(steps) < 1e-13, "{steps} steps: {}", error(steps));
        }
    }
}
