// DFG 3D benchmark channel (Schaefer & Turek 1996): 2.5 x 0.41 x 0.41 with a cylinder of
// diameter 0.1 whose axis runs along z through (0.5, 0.2). Patches: inlet, outlet, walls,
// cylinder. Mesh size from the command line: gmsh -3 channel.geo -setnumber size 0.06
//
// A refinement family: every length of the mesh scales with `size`. The element size grows
// linearly with the distance r from the cylinder surface, from size / 5 on the cylinder to
// `size` at r = 0.25 (2.5 D) and beyond (a Threshold on the exact distance, so the cylinder
// gets 2 pi 0.05 / (size / 5) segments around: 26 at size 0.06, 39 at 0.04, 59 at 0.0267).
// The same sizes as `meshtool generate cylinder --size S` (meshtool/src/generate/gmsh.rs):
// keep the two identical. Tetrahedra: 28.4k at size 0.06, 90.6k at 0.04, ~300k at 0.0267.
SetFactory("OpenCASCADE");
DefineConstant[ size = 0.06 ];
Box(1) = {0, 0, 0, 2.5, 0.41, 0.41};
Cylinder(2) = {0.5, 0.2, 0, 0, 0, 0.41, 0.05, 2*Pi};
BooleanDifference(3) = { Volume{1}; Delete; }{ Volume{2}; Delete; };
eps = 1e-6;
inlet() = Surface In BoundingBox{-eps, -eps, -eps, eps, 0.41 + eps, 0.41 + eps};
outlet() = Surface In BoundingBox{2.5 - eps, -eps, -eps, 2.5 + eps, 0.41 + eps, 0.41 + eps};
cylinder() = Surface In BoundingBox{0.45 - eps, 0.15 - eps, -eps, 0.55 + eps, 0.25 + eps, 0.41 + eps};
walls() = Surface{:};
walls() -= inlet();
walls() -= outlet();
walls() -= cylinder();
Physical Surface("inlet", 1) = {inlet()};
Physical Surface("outlet", 2) = {outlet()};
Physical Surface("walls", 3) = {walls()};
Physical Surface("cylinder", 4) = {cylinder()};
Physical Volume("fluid", 10) = {3};
Field[1] = MathEval;
Field[1].F = "Sqrt((x - 0.5)^2 + (y - 0.2)^2) - 0.05";
Field[2] = Threshold;
Field[2].IField = 1;
Field[2].LcMin = size / 5;
Field[2].LcMax = size;
Field[2].DistMin = 0;
Field[2].DistMax = 0.25;
Background Field = 2;
Mesh.MeshSizeMax = size;
Mesh.MeshSizeMin = size / 10;
Mesh.MeshSizeFromCurvature = 0;
Mesh.MeshSizeExtendFromBoundary = 0;
