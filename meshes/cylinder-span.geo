// A circular cylinder (diameter 1, centred at the origin) in a spanwise-periodic slab, for LES
// of the cylinder wake (Re 3900 is the classic case, span pi D): x in [-10, 25], y in
// [-half_height, half_height] (10 by default: a blockage D / H of 1/20; 20 halves it),
// extruded by `span` along z in `layers` layers (at least 2: a periodic direction needs two
// cells across), the end faces joined by `Periodic Surface` (the Navier-Stokes family
// treats them as interior faces). Patches: inlet, outlet, far (y = ±half_height: slip), cylinder;
// back (z = 0) and front (z = span) leave the patch list as a periodic pair.
// gmsh -3 cylinder-span.geo -setnumber size 0.2 -format msh41 -o span.msh
// meshtool prepare span.msh -o span.pmesh   (size 0.2, 8 layers: 21,408 tets, 892 face pairs)
// Gmsh 4.8 without ANN reports "Cannot find periodic counterpart of node .. of curve .." for
// the extrusion's curves but writes the mesh and its $Periodic section; meshtool checks every
// face pair (and refuses any mismatch): all 892 joined.
// The element size is `size` on the cylinder and grows linearly to `far` 8 diameters out.
SetFactory("OpenCASCADE");
DefineConstant[ size = 0.2, far = 2.0, span = 3.14159265358979, layers = 8, half_height = 10 ];
Rectangle(1) = {-10, -half_height, 0, 35, 2 * half_height};
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
Background Field = 2;
Mesh.MeshSizeExtendFromBoundary = 0;
Mesh.MeshSizeFromPoints = 0;
Mesh.MeshSizeFromCurvature = 0;
out[] = Extrude {0, 0, span} { Surface{3}; Layers{layers}; };
eps = 1e-6;
// The end face at z = span is the one at z = 0 moved by the span.
Periodic Surface{out[0]} = {3} Translate{0, 0, span};
inlet() = Surface In BoundingBox{-10 - eps, -half_height - eps, -eps, -10 + eps, half_height + eps, span + eps};
outlet() = Surface In BoundingBox{25 - eps, -half_height - eps, -eps, 25 + eps, half_height + eps, span + eps};
cylinder() = Surface In BoundingBox{-0.5 - eps, -0.5 - eps, -eps, 0.5 + eps, 0.5 + eps, span + eps};
bottom() = Surface In BoundingBox{-10 - eps, -half_height - eps, -eps, 25 + eps, -half_height + eps, span + eps};
top() = Surface In BoundingBox{-10 - eps, half_height - eps, -eps, 25 + eps, half_height + eps, span + eps};
Physical Surface("inlet", 1) = {inlet()};
Physical Surface("outlet", 2) = {outlet()};
Physical Surface("far", 3) = {bottom(), top()};
Physical Surface("cylinder", 4) = {cylinder()};
Physical Surface("back", 5) = {3};
Physical Surface("front", 6) = {out[0]};
Physical Volume("fluid", 10) = {out[1]};
