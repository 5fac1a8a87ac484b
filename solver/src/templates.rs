//! Built-in case templates (`solver cases`, `solver cases NAME`).

pub const TEMPLATES: &[(&str, &str, &str)] = &[
    (
        "heat-benchmark",
        "thesis benchmark cube: 2000 RK3 steps, Dirichlet at y = 0, periodic x and z",
        include_str!("../templates/heat-benchmark.toml"),
    ),
    (
        "heat-gaussian",
        "periodic Gaussian diffusion against the exact heat-kernel solution",
        include_str!("../templates/heat-gaussian.toml"),
    ),
    (
        "heat-erfc",
        "Dirichlet-driven slab against the erfc series",
        include_str!("../templates/heat-erfc.toml"),
    ),
    (
        "heat-decay",
        "decaying periodic mode with a closed-form solution (convergence)",
        include_str!("../templates/heat-decay.toml"),
    ),
    (
        "advect-step",
        "paper's test: step function 30 steps forward and 30 back at CFL 3 (needs duct.pmesh)",
        include_str!("../templates/advect-step.toml"),
    ),
    (
        "advect-sine-ellipse",
        "the same with the sine / half-ellipse profile",
        include_str!("../templates/advect-sine-ellipse.toml"),
    ),
    (
        "advect-rotation",
        "solid-body rotation of a smooth bump (convergence; needs box.pmesh)",
        include_str!("../templates/advect-rotation.toml"),
    ),
    (
        "advect-deformation",
        "LeVeque's reversing deformation field (needs box.pmesh)",
        include_str!("../templates/advect-deformation.toml"),
    ),
];

pub fn get(name: &str) -> Option<&'static str> {
    TEMPLATES.iter().find(|t| t.0 == name).map(|t| t.2)
}
