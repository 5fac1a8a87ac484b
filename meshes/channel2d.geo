// DFG 2D benchmark channel (Schaefer & Turek 1996, tests 2D-1/2/3) as a slab one cell thick:
// 2.2 x 0.41 with a cylinder of diameter 0.1 centred at (0.2, 0.2), extruded by `thick` along z
// in one layer of tetrahedra (three per prism). Patches: inlet (x = 0), outlet (x = 2.2), walls
// (y = 0, 0.41), cylinder, sides (z = 0 and z = thick: symmetry planes for a 2D flow).
// gmsh -3 channel2d.geo -setnumber size 0.02 -setnumber thick 0.01 -format msh41 -bin
// The element size grows linearly with the distance r from the cylinder, from size / 4 on it to
// `size` at r = 0.3 and beyond.
SetFactory("OpenCASCADE");
DefineConstant[ size = 0.02, thick = 0.01 ];
Rectangle(1) = {0, 0, 0, 2.2, 0.41};
Disk(2) = {0.2, 0.2, 0, 0.05, 0.05};
BooleanDifference(3) = { Surface{1}; Delete; }{ Surface{2}; Delete; };
Field[1] = MathEval;
Field[1].F = "Sqrt((x - 0.2)^2 + (y - 0.2)^2) - 0.05";
Field[2] = Threshold;
Field[2].IField = 1;
Field[2].LcMin = size / 4;
Field[2].LcMax = size;
Field[2].DistMin = 0;
Field[2].DistMax = 0.3;
Background Field = 2;
Mesh.MeshSizeMax = size;
Mesh.MeshSizeExtendFromBoundary = 0;
Mesh.MeshSizeFromPoints = 0;
Mesh.MeshSizeFromCurvature = 0;
out[] = Extrude {0, 0, thick} { Surface{3}; Layers{1}; };
eps = 1e-6;
inlet() = Surface In BoundingBox{-eps, -eps, -eps, eps, 0.41 + eps, thick + eps};
outlet() = Surface In BoundingBox{2.2 - eps, -eps, -eps, 2.2 + eps, 0.41 + eps, thick + eps};
cylinder() = Surface In BoundingBox{0.15 - eps, 0.15 - eps, -eps, 0.25 + eps, 0.25 + eps, thick + eps};
bottom() = Surface In BoundingBox{-eps, -eps, -eps, 2.2 + eps, eps, thick + eps};
top() = Surface In BoundingBox{-eps, 0.41 - eps, -eps, 2.2 + eps, 0.41 + eps, thick + eps};
sides() = Surface In BoundingBox{-eps, -eps, -eps, 2.2 + eps, 0.41 + eps, eps};
sides() += Surface In BoundingBox{-eps, -eps, thick - eps, 2.2 + eps, 0.41 + eps, thick + eps};
Physical Surface("inlet", 1) = {inlet()};
Physical Surface("outlet", 2) = {outlet()};
Physical Surface("walls", 3) = {bottom(), top()};
Physical Surface("cylinder", 4) = {cylinder()};
Physical Surface("sides", 5) = {sides()};
Physical Volume("fluid", 10) = {out[1]};
