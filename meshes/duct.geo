// A straight channel 2.5 x 0.41 x 0.41 (the DFG channel without the cylinder), for the
// semi-Lagrangian advection tests. Patches: inlet (x = 0), outlet (x = 2.5), walls.
// gmsh -3 duct.geo -format msh41 -o duct.msh   (size 0.037: about 40,000 tetrahedra)
SetFactory("OpenCASCADE");
DefineConstant[ size = 0.037 ];
Box(1) = {0, 0, 0, 2.5, 0.41, 0.41};
eps = 1e-6;
inlet() = Surface In BoundingBox{-eps, -eps, -eps, eps, 0.41 + eps, 0.41 + eps};
outlet() = Surface In BoundingBox{2.5 - eps, -eps, -eps, 2.5 + eps, 0.41 + eps, 0.41 + eps};
walls() = Surface{:};
walls() -= inlet();
walls() -= outlet();
Physical Surface("inlet", 1) = {inlet()};
Physical Surface("outlet", 2) = {outlet()};
Physical Surface("walls", 3) = {walls()};
Physical Volume("fluid", 10) = {1};
Mesh.MeshSizeMax = size;
Mesh.MeshSizeMin = size;
