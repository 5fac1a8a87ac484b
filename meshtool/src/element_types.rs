//! Gmsh's element types: node count, name, dimension and polynomial order of every type a
//! `.msh` file may hold (from `gmsh::model::mesh::getElementProperties` of Gmsh 4.8.4; polygons,
//! polyhedra and order-0 types, which carry no fixed node list, are left out). The reader needs
//! the node count of every type to step over the ones it skips, and the order to say which
//! Gmsh setting made an element it refuses.

use std::path::Path;

/// An element type as Gmsh defines it.
#[derive(Clone, Copy, Debug)]
pub struct ElementType {
    pub nodes: usize,
    /// "10-node tetrahedron".
    pub name: &'static str,
    pub dim: u8,
    /// 1 linear, 2 quadratic, ...; 0 for the point.
    pub order: u8,
}

/// The type with Gmsh's number `t`, if Gmsh has one.
pub fn element_type(t: i32) -> Option<ElementType> {
    TYPES.binary_search_by_key(&t, |e| e.0).ok().map(|k| {
        let (_, nodes, name, dim, order) = TYPES[k];
        ElementType {
            nodes,
            name,
            dim,
            order,
        }
    })
}

/// (Gmsh number, nodes, name, dimension, order), by number.
const TYPES: &[(i32, usize, &str, u8, u8)] = &[
    (1, 2, "2-node line", 1, 1),
    (2, 3, "3-node triangle", 2, 1),
    (3, 4, "4-node quadrangle", 2, 1),
    (4, 4, "4-node tetrahedron", 3, 1),
    (5, 8, "8-node hexahedron", 3, 1),
    (6, 6, "6-node prism", 3, 1),
    (7, 5, "5-node pyramid", 3, 1),
    (8, 3, "3-node line", 1, 2),
    (9, 6, "6-node triangle", 2, 2),
    (10, 9, "9-node quadrangle", 2, 2),
    (11, 10, "10-node tetrahedron", 3, 2),
    (12, 27, "27-node hexahedron", 3, 2),
    (13, 18, "18-node prism", 3, 2),
    (14, 14, "14-node pyramid", 3, 2),
    (15, 1, "1-node point", 0, 0),
    (16, 8, "8-node quadrangle", 2, 2),
    (17, 20, "20-node hexahedron", 3, 2),
    (18, 15, "15-node prism", 3, 2),
    (19, 13, "13-node pyramid", 3, 2),
    (20, 9, "9-node triangle", 2, 3),
    (21, 10, "10-node triangle", 2, 3),
    (22, 12, "12-node triangle", 2, 4),
    (23, 15, "15-node triangle", 2, 4),
    (24, 15, "15-node triangle", 2, 5),
    (25, 21, "21-node triangle", 2, 5),
    (26, 4, "4-node line", 1, 3),
    (27, 5, "5-node line", 1, 4),
    (28, 6, "6-node line", 1, 5),
    (29, 20, "20-node tetrahedron", 3, 3),
    (30, 35, "35-node tetrahedron", 3, 4),
    (31, 56, "56-node tetrahedron", 3, 5),
    (32, 22, "22-node tetrahedron", 3, 4),
    (33, 28, "28-node tetrahedron", 3, 5),
    (36, 16, "16-node quadrangle", 2, 3),
    (37, 25, "25-node quadrangle", 2, 4),
    (38, 36, "36-node quadrangle", 2, 5),
    (39, 12, "12-node quadrangle", 2, 3),
    (40, 16, "16-node quadrangle", 2, 4),
    (41, 20, "20-node quadrangle", 2, 5),
    (42, 28, "28-node triangle", 2, 6),
    (43, 36, "36-node triangle", 2, 7),
    (44, 45, "45-node triangle", 2, 8),
    (45, 55, "55-node triangle", 2, 9),
    (46, 66, "66-node triangle", 2, 10),
    (47, 49, "49-node quadrangle", 2, 6),
    (48, 64, "64-node quadrangle", 2, 7),
    (49, 81, "81-node quadrangle", 2, 8),
    (50, 100, "100-node quadrangle", 2, 9),
    (51, 121, "121-node quadrangle", 2, 10),
    (52, 18, "18-node triangle", 2, 6),
    (53, 21, "21-node triangle", 2, 7),
    (54, 24, "24-node triangle", 2, 8),
    (55, 27, "27-node triangle", 2, 9),
    (56, 30, "30-node triangle", 2, 10),
    (57, 24, "24-node quadrangle", 2, 6),
    (58, 28, "28-node quadrangle", 2, 7),
    (59, 32, "32-node quadrangle", 2, 8),
    (60, 36, "36-node quadrangle", 2, 9),
    (61, 40, "40-node quadrangle", 2, 10),
    (62, 7, "7-node line", 1, 6),
    (63, 8, "8-node line", 1, 7),
    (64, 9, "9-node line", 1, 8),
    (65, 10, "10-node line", 1, 9),
    (66, 11, "11-node line", 1, 10),
    (71, 84, "84-node tetrahedron", 3, 6),
    (72, 120, "120-node tetrahedron", 3, 7),
    (73, 165, "165-node tetrahedron", 3, 8),
    (74, 220, "220-node tetrahedron", 3, 9),
    (75, 286, "286-node tetrahedron", 3, 10),
    (79, 34, "34-node tetrahedron", 3, 6),
    (80, 40, "40-node tetrahedron", 3, 7),
    (81, 46, "46-node tetrahedron", 3, 8),
    (82, 52, "52-node tetrahedron", 3, 9),
    (83, 58, "58-node tetrahedron", 3, 10),
    (92, 64, "64-node hexahedron", 3, 3),
    (93, 125, "125-node hexahedron", 3, 4),
    (94, 216, "216-node hexahedron", 3, 5),
    (95, 343, "343-node hexahedron", 3, 6),
    (96, 512, "512-node hexahedron", 3, 7),
    (97, 729, "729-node hexahedron", 3, 8),
    (98, 1000, "1000-node hexahedron", 3, 9),
    (99, 32, "32-node hexahedron", 3, 3),
    (100, 44, "44-node hexahedron", 3, 4),
    (101, 56, "56-node hexahedron", 3, 5),
    (102, 68, "68-node hexahedron", 3, 6),
    (103, 80, "80-node hexahedron", 3, 7),
    (104, 92, "92-node hexahedron", 3, 8),
    (105, 104, "104-node hexahedron", 3, 9),
    (118, 30, "30-node pyramid", 3, 3),
    (119, 55, "55-node pyramid", 3, 4),
    (120, 91, "91-node pyramid", 3, 5),
    (121, 140, "140-node pyramid", 3, 6),
    (122, 204, "204-node pyramid", 3, 7),
    (123, 285, "285-node pyramid", 3, 8),
    (124, 385, "385-node pyramid", 3, 9),
    (125, 21, "21-node pyramid", 3, 3),
    (126, 29, "29-node pyramid", 3, 4),
    (127, 37, "37-node pyramid", 3, 5),
    (128, 45, "45-node pyramid", 3, 6),
    (129, 53, "53-node pyramid", 3, 7),
    (130, 61, "61-node pyramid", 3, 8),
    (131, 69, "69-node pyramid", 3, 9),
    (137, 16, "16-node tetrahedron", 3, 3),
];

/// The message for a volume element other than the linear tetrahedron: what the mesh has and
/// the Gmsh setting that made it (the element order for curved elements, recombination or
/// subdivision for hexahedra, prisms and pyramids).
pub(crate) fn unsupported_volume_element(path: &Path, element: u64, type_id: i32, type_name: &str) -> String {
    let order = element_type(type_id).map_or(1, |e| e.order);
    let (nodes, shape) = type_name.split_once("-node ").unwrap_or(("?", type_name));
    let shapes = match shape {
        "tetrahedron" => "tetrahedra",
        "hexahedron" => "hexahedra",
        "prism" => "prisms",
        "pyramid" => "pyramids",
        other => other,
    };
    let ordinal = [
        "", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
    ];
    let what = match ordinal.get(order as usize) {
        Some(o) if order >= 2 => format!("{o}-order ({nodes}-node) {shapes}"),
        _ if order >= 2 => format!("order-{order} ({nodes}-node) {shapes}"),
        _ => shapes.to_string(),
    };
    let linear = format!(
        "the element order was {order} (Mesh.ElementOrder = {order}, `-order {order}` or `SetOrder {order};`): mesh it again with Mesh.ElementOrder = 1 (or `gmsh -3 -order 1`)"
    );
    let tets_only = "hexahedra, prisms and pyramids come from recombination or subdivision: mesh it again into tetrahedra only, without Recombine (in Extrude and on Transfinite volumes) and with Mesh.RecombineAll = 0, Mesh.Recombine3DAll = 0 and Mesh.SubdivisionAlgorithm = 0";
    let fix = match (shape == "tetrahedron", order >= 2) {
        (true, _) => linear,
        (false, false) => tets_only.to_string(),
        (false, true) => format!("{tets_only}; and {linear}"),
    };
    format!(
        "{}: element {element} has type {type_id} ({type_name}): the mesh has {what}, but only linear tetrahedra (4-node, type 4) are supported as volume elements; {fix}",
        path.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_sorted_and_its_names_give_the_node_counts() {
        assert!(TYPES.windows(2).all(|w| w[0].0 < w[1].0));
        for &(t, nodes, name, ..) in TYPES {
            assert_eq!(
                name.split('-').next().unwrap().parse::<usize>().unwrap(),
                nodes,
                "type {t}"
            );
        }
        let tet10 = element_type(11).unwrap();
        assert_eq!(
            (tet10.nodes, tet10.name, tet10.dim, tet10.order),
            (10, "10-node tetrahedron", 3, 2)
        );
        assert!(element_type(0).is_none() && element_type(34).is_none() && element_type(1000).is_none());
    }
}
