// A 1 x 0.5 x 0.25 box, periodic in x (xmax = xmin + (1, 0, 0)) and z (zmax = zmin +
// (0, 0, 0.25)), walls ymin/ymax: the periodic-import tests' mesh (tests/periodic.rs).
// gmsh -3 periodic-box.geo -format msh41 -o periodic-box-41.msh
SetFactory("OpenCASCADE");
L = 1.0; W = 0.5; H = 0.25;
size = DefineNumber[0.2, Name "size"];
Box(1) = {0, 0, 0, L, W, H};
// OCC box faces: 1 x=0, 2 x=L, 3 y=0, 4 y=W, 5 z=0, 6 z=H
Periodic Surface{2} = {1} Translate{L, 0, 0};
Periodic Surface{6} = {5} Translate{0, 0, H};
Mesh.CharacteristicLengthMax = size;
Physical Surface("xmin") = {1};
Physical Surface("xmax") = {2};
Physical Surface("ymin") = {3};
Physical Surface("ymax") = {4};
Physical Surface("zmin") = {5};
Physical Surface("zmax") = {6};
Physical Volume("fluid") = {1};
