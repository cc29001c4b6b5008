/*
 * pde_flame_int.h - what pde_flame.c takes from pde_flame_js.c.  Private
 * to emit/.
 */
#ifndef PDE_FLAME_INT_H
#define PDE_FLAME_INT_H

/*
 * The flame graph's script: zoom, search, details.  It reads the frames'
 * data-s (first sample), data-n (samples) and data-d (depth) attributes,
 * the name from the <title> ("NAME (COUNT UNIT, PCT%)"), and the layout
 * from the attributes of <g id="frames">; pde_flame.c writes them.
 */
extern const char pde_flame_script[];

#endif /* PDE_FLAME_INT_H */
