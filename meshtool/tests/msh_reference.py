#!/usr/bin/env python3
"""Independent reference for meshtool's import: total volume of the linear tetrahedra and the
area of each physical surface, computed with Gmsh's own reader (python3-gmsh) and numpy.
Prints one JSON object: {"nodes", "cells", "volume", "patches": {name: area}}."""
import json
import sys

import gmsh
import numpy as np

gmsh.initialize(["", "-v", "0"])
gmsh.open(sys.argv[1])
tags, coords, _ = gmsh.model.mesh.getNodes()
xyz = np.zeros((int(tags.max()) + 1, 3))
xyz[tags.astype(int)] = coords.reshape(-1, 3)


def elements(etype, dim=-1, tag=-1):
    _, nodes = gmsh.model.mesh.getElementsByType(etype, tag)
    return nodes.astype(int).reshape(-1, 4 if etype == 4 else 3)


tets = elements(4)
a, b, c, d = (xyz[tets[:, k]] for k in range(4))
vol = np.abs(np.einsum("ij,ij->i", b - a, np.cross(c - a, d - a))).sum() / 6.0
patches = {}
for dim, ptag in gmsh.model.getPhysicalGroups(2):
    name = gmsh.model.getPhysicalName(dim, ptag)
    area = 0.0
    for ent in gmsh.model.getEntitiesForPhysicalGroup(dim, ptag):
        tris = elements(2, 2, ent)
        p, q, r = (xyz[tris[:, k]] for k in range(3))
        area += 0.5 * np.linalg.norm(np.cross(q - p, r - p), axis=1).sum()
    patches[name] = area
print(json.dumps({"nodes": len(tags), "cells": len(tets), "volume": vol, "patches": patches}))
gmsh.finalize()
