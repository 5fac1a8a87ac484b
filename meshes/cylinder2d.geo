// An unconfined circular cylinder (diameter 1, centred at the origin) as a slab one cell thick,
// for the drag curve (validation/drag-curve/drag_curve.py): x in [-15, 35], y in [-15, 15] (blockage 1/30),
// extruded by `thick` along z in one layer of tetrahedra (three per prism). Patches: inlet
// (x = -15), outlet (x = 35), far (y = -15, 15: slip), cylinder, sides (z = 0 and z = thick).
// gmsh -3 cylinder2d.geo -setnumber size 0.03 -format msh41 -bin
// The element size is `size` on the cylinder and grows linearly to `far` 8 diameters out;
// the near wake (a band 2.5 wide to x = 10) keeps 4 size at most.
SetFactory("OpenCASCADE");
DefineConstant[ size = 0.025, far = 0.5, thick = 0.1 ];
Rectangle(1) = {-15, -15, 0, 50, 30};
Disk(2) = {0, 0, 0, 0.5, 0.5};
BooleanDifference(3) = { Surface{1}; Delete; }{ Surface{2}; Delete; };
Field[1] = MathEval;
Field[1].F = "Sqrt(x^2 + y^2) - 0.5";
Field[2] = Threshold;
Field[2].IField = 1;
Field[2].LcMin = size;
Field[2].LcMax = far;
Field[2].DistMin = 0;
Field[2].DistMax = 8;
Field[3] = Box;
Field[3].VIn = 4 * size;
Field[3].VOut = far;
Field[3].XMin = 0; Field[3].XMax = 10; Field[3].YMin = -1.25; Field[3].YMax = 1.25;
Field[3].Thickness = 3;
Field[5] = Min;
Field[5].FieldsList = {2, 3};
Background Field = 5;
Mesh.MeshSizeMax = far;
Mesh.MeshSizeExtendFromBoundary = 0;
Mesh.MeshSizeFromPoints = 0;
Mesh.MeshSizeFromCurvature = 0;
out[] = Extrude {0, 0, thick} { Surface{3}; Layers{1}; };
eps = 1e-6;
inlet() = Surface In BoundingBox{-15 - eps, -15 - eps, -eps, -15 + eps, 15 + eps, thick + eps};
outlet() = Surface In BoundingBox{35 - eps, -15 - eps, -eps, 35 + eps, 15 + eps, thick + eps};
cylinder() = Surface In BoundingBox{-0.5 - eps, -0.5 - eps, -eps, 0.5 + eps, 0.5 + eps, thick + eps};
bottom() = Surface In BoundingBox{-15 - eps, -15 - eps, -eps, 35 + eps, -15 + eps, thick + eps};
top() = Surface In BoundingBox{-15 - eps, 15 - eps, -eps, 35 + eps, 15 + eps, thick + eps};
sides() = Surface In BoundingBox{-15 - eps, -15 - eps, -eps, 35 + eps, 15 + eps, eps};
sides() += Surface In BoundingBox{-15 - eps, -15 - eps, thick - eps, 35 + eps, 15 + eps, thick + eps};
Physical Surface("inlet", 1) = {inlet()};
Physical Surface("outlet", 2) = {outlet()};
Physical Surface("far", 3) = {bottom(), top()};
Physical Surface("cylinder", 4) = {cylinder()};
Physical Surface("sides", 5) = {sides()};
Physical Volume("fluid", 10) = {out[1]};
