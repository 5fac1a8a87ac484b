// DFG 3D benchmark channel (Schaefer & Turek 1996): 2.5 x 0.41 x 0.41 with a cylinder of
// diameter 0.1 whose axis runs along z through (0.5, 0.2). Patches: inlet, outlet, walls,
// cylinder. Mesh size from the command line: gmsh -3 channel.geo -setnumber size 0.05
SetFactory("OpenCASCADE");
DefineConstant[ size = 0.05 ];
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
Mesh.MeshSizeMax = size;
Mesh.MeshSizeMin = size / 10;
Mesh.MeshSizeFromCurvature = 24;
