// LIBOMP14-DEFECT: the exclusion operator: "{0,1,!1}" is rejected as a syntax error (falling back to cores), and "{0},{1},!{1}" reads "!{1}" as the complement of {1}, a third place {0}, instead of excluding the place {1} from the list.
/* The exclusion operator "!" of OMP_PLACES (5.2, OMP_PLACES: it excludes the
   number or place immediately following it): "{0,1,!1}" is the place {0};
   "{0},{1},!{1}" is the list {0}. aff_places.c with a row of its own. */
#include "aff_places.c"
