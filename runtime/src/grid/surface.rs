//! The surface a grid lives on: a sphere of radius R, or a doubly periodic plane (torus).
//!
//! Every geometric quantity of [`Geometry`](super::Geometry) is built from these few
//! primitives, so the sphere and the torus share one implementation of ICON's formulas.

use serde::{Deserialize, Serialize};

use super::vec3::{add, cross, dot, norm, normalize, scale, sub, tangential, Vec3};

/// Earth's radius as ICON uses it (`EARTH_RADIUS`, metres).
pub const EARTH_RADIUS: f64 = 6.371229e6;

/// The surface a grid covers, which decides how its points are stored and measured.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Surface {
    /// Points are stored as 3-D positions on the sphere of this radius (metres).
    Sphere {
        /// The radius, metres ([`EARTH_RADIUS`] for ICON's grids).
        radius: f64,
    },
    /// Points are stored as `(x, y, 0)` with `0 <= x < length_x`, `0 <= y < length_y`.
    Torus {
        /// The period along x, metres.
        length_x: f64,
        /// The period along y, metres.
        length_y: f64,
    },
}

impl Surface {
    /// The outward unit normal of the surface at `p`.
    pub fn up(&self, p: Vec3) -> Vec3 {
        match self {
            Surface::Sphere { .. } => normalize(p),
            Surface::Torus { .. } => [0.0, 0.0, 1.0],
        }
    }

    /// Local east and north unit vectors at `p` (the frame of ICON's `*_x`/`*_y` components).
    /// On the sphere they follow longitude and latitude; at a pole longitude 0 is used.
    pub fn east_north(&self, p: Vec3) -> (Vec3, Vec3) {
        match self {
            Surface::Sphere { .. } => {
                let (lat, lon) = lat_lon(p);
                let east = [-lon.sin(), lon.cos(), 0.0];
                let north = [-lat.sin() * lon.cos(), -lat.sin() * lon.sin(), lat.cos()];
                (east, north)
            }
            Surface::Torus { .. } => ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
        }
    }

    /// The shortest difference `b - a` on a torus (minimal image); the plain difference on
    /// the sphere.
    fn delta(&self, a: Vec3, b: Vec3) -> Vec3 {
        let d = sub(b, a);
        match self {
            Surface::Sphere { .. } => d,
            Surface::Torus { length_x, length_y } => [
                d[0] - length_x * (d[0] / length_x).round(),
                d[1] - length_y * (d[1] / length_y).round(),
                0.0,
            ],
        }
    }

    fn wrap(&self, p: Vec3) -> Vec3 {
        match self {
            Surface::Sphere { .. } => p,
            Surface::Torus { length_x, length_y } => {
                [p[0].rem_euclid(*length_x), p[1].rem_euclid(*length_y), 0.0]
            }
        }
    }

    /// Projects a point onto the surface (used by the generators).
    pub fn place(&self, p: Vec3) -> Vec3 {
        match self {
            Surface::Sphere { radius } => scale(normalize(p), *radius),
            Surface::Torus { .. } => self.wrap(p),
        }
    }

    /// The midpoint of the geodesic from `a` to `b`.
    pub fn midpoint(&self, a: Vec3, b: Vec3) -> Vec3 {
        match self {
            Surface::Sphere { .. } => self.place(add(a, b)),
            Surface::Torus { .. } => self.wrap(add(a, scale(self.delta(a, b), 0.5))),
        }
    }

    /// Geodesic distance.
    pub fn distance(&self, a: Vec3, b: Vec3) -> f64 {
        match self {
            Surface::Sphere { radius } => {
                let (ua, ub) = (normalize(a), normalize(b));
                radius * norm(cross(ua, ub)).atan2(dot(ua, ub))
            }
            Surface::Torus { .. } => norm(self.delta(a, b)),
        }
    }

    /// Area of the geodesic triangle `a, b, c`, positive when the corners run
    /// counter-clockwise seen from outside.
    pub fn signed_triangle_area(&self, a: Vec3, b: Vec3, c: Vec3) -> f64 {
        match self {
            Surface::Sphere { radius } => {
                let (a, b, c) = (normalize(a), normalize(b), normalize(c));
                // Van Oosterom and Strackee: tan(E/2) = a.(b x c) / (1 + a.b + b.c + c.a).
                let excess =
                    2.0 * dot(a, cross(b, c)).atan2(1.0 + dot(a, b) + dot(b, c) + dot(c, a));
                excess * radius * radius
            }
            Surface::Torus { .. } => {
                let (ab, ac) = (self.delta(a, b), self.delta(a, c));
                0.5 * (ab[0] * ac[1] - ab[1] * ac[0])
            }
        }
    }

    /// The circumcentre of the triangle `a, b, c` (counter-clockwise): the point equidistant
    /// from the three corners, on the outer side of the triangle's plane on the sphere.
    pub fn circumcenter(&self, a: Vec3, b: Vec3, c: Vec3) -> Vec3 {
        match self {
            Surface::Sphere { .. } => self.place(cross(sub(b, a), sub(c, a))),
            Surface::Torus { .. } => {
                let (b, c) = (self.delta(a, b), self.delta(a, c));
                let d = 2.0 * (b[0] * c[1] - b[1] * c[0]);
                let (bb, cc) = (b[0] * b[0] + b[1] * b[1], c[0] * c[0] + c[1] * c[1]);
                let ux = (c[1] * bb - b[1] * cc) / d;
                let uy = (b[0] * cc - c[0] * bb) / d;
                self.wrap([a[0] + ux, a[1] + uy, 0.0])
            }
        }
    }

    /// The unit tangent at `from` of the geodesic towards `to`.
    pub fn direction(&self, from: Vec3, to: Vec3) -> Vec3 {
        normalize(tangential(self.delta(from, to), self.up(from)))
    }

    /// `to` in the local east/north coordinates of `from` (a gnomonic-like tangent-plane
    /// projection, exact on the torus), in metres.
    pub fn local_coordinates(&self, from: Vec3, to: Vec3) -> [f64; 2] {
        let (east, north) = self.east_north(from);
        let dir = self.direction(from, to);
        let dist = self.distance(from, to);
        [dist * dot(dir, east), dist * dot(dir, north)]
    }
}

/// Latitude and longitude (radians) of a point on the sphere.
pub fn lat_lon(p: Vec3) -> (f64, f64) {
    let u = normalize(p);
    (u[2].clamp(-1.0, 1.0).asin(), u[1].atan2(u[0]))
}
