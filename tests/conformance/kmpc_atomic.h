/* kmpc_atomic.h: prototypes of libomp's __kmpc_atomic_* entry points, as
 * libomp.so.5 defines them on x86-64 Linux, for the atomic_kmpc_* programs,
 * which call them directly (as Intel's compilers and flang do).
 *
 * Shared shapes:
 *   void  <name>(ident_t *, int gtid, T *x, T e);                 update, _rev, mixed, _wr
 *   T     <name>_cpt(ident_t *, int gtid, T *x, T e, int flag);   flag 0: x before; else x after
 *   T     <name>_rd(ident_t *, int gtid, T *x);
 *   T     <name>_swp(ident_t *, int gtid, T *x, T e);             x before
 * cmplx4's captures and swap return the value through `T *out` instead.
 */
#ifndef CONF_KMPC_ATOMIC_H
#define CONF_KMPC_ATOMIC_H

#include <stdbool.h>

typedef struct kmpc_ident kmpc_ident;
int __kmpc_global_thread_num(kmpc_ident *);

#define KA_UPD(t, T, op) void __kmpc_atomic_##t##_##op(kmpc_ident *, int, T *, T);
#define KA_CPT(t, T, op) T __kmpc_atomic_##t##_##op##_cpt(kmpc_ident *, int, T *, T, int);
#define KA_REV(t, T, op)                                                                           \
  void __kmpc_atomic_##t##_##op##_rev(kmpc_ident *, int, T *, T);                                 \
  T __kmpc_atomic_##t##_##op##_cpt_rev(kmpc_ident *, int, T *, T, int);
#define KA_ACCESS(t, T)                                                                            \
  T __kmpc_atomic_##t##_rd(kmpc_ident *, int, T *);                                               \
  void __kmpc_atomic_##t##_wr(kmpc_ident *, int, T *, T);                                         \
  T __kmpc_atomic_##t##_swp(kmpc_ident *, int, T *, T);
#define KA_COMMUTE(t, T, op) KA_UPD(t, T, op) KA_CPT(t, T, op)
#define KA_NONCOMMUTE(t, T, op) KA_UPD(t, T, op) KA_CPT(t, T, op) KA_REV(t, T, op)

#define KA_FIXED(t, T, tu, U)                                                                      \
  KA_COMMUTE(t, T, add) KA_NONCOMMUTE(t, T, sub) KA_COMMUTE(t, T, mul) KA_NONCOMMUTE(t, T, div)    \
  KA_NONCOMMUTE(tu, U, div) KA_COMMUTE(t, T, andb) KA_COMMUTE(t, T, orb) KA_COMMUTE(t, T, xor)     \
  KA_NONCOMMUTE(t, T, shl) KA_NONCOMMUTE(t, T, shr) KA_NONCOMMUTE(tu, U, shr)                      \
  KA_COMMUTE(t, T, andl) KA_COMMUTE(t, T, orl) KA_COMMUTE(t, T, eqv) KA_COMMUTE(t, T, neqv)        \
  KA_COMMUTE(t, T, max) KA_COMMUTE(t, T, min) KA_ACCESS(t, T)                                      \
  void __kmpc_atomic_##t##_mul_float8(kmpc_ident *, int, T *, double);                            \
  void __kmpc_atomic_##t##_div_float8(kmpc_ident *, int, T *, double);
KA_FIXED(fixed1, char, fixed1u, unsigned char)
KA_FIXED(fixed2, short, fixed2u, unsigned short)
KA_FIXED(fixed4, int, fixed4u, unsigned int)
KA_FIXED(fixed8, long long, fixed8u, unsigned long long)

#define KA_FLOAT(t, T)                                                                             \
  KA_COMMUTE(t, T, add) KA_NONCOMMUTE(t, T, sub) KA_COMMUTE(t, T, mul) KA_NONCOMMUTE(t, T, div)    \
  KA_COMMUTE(t, T, max) KA_COMMUTE(t, T, min) KA_ACCESS(t, T)
KA_FLOAT(float4, float)
KA_FLOAT(float8, double)
KA_FLOAT(float10, long double)
void __kmpc_atomic_float4_add_float8(kmpc_ident *, int, float *, double);
void __kmpc_atomic_float4_sub_float8(kmpc_ident *, int, float *, double);
void __kmpc_atomic_float4_mul_float8(kmpc_ident *, int, float *, double);
void __kmpc_atomic_float4_div_float8(kmpc_ident *, int, float *, double);

typedef float _Complex cmplx4;
typedef double _Complex cmplx8;
typedef long double _Complex cmplx10;
#define KA_COMPLEX(t, T)                                                                           \
  KA_COMMUTE(t, T, add) KA_NONCOMMUTE(t, T, sub) KA_COMMUTE(t, T, mul) KA_NONCOMMUTE(t, T, div)    \
  KA_ACCESS(t, T)
KA_COMPLEX(cmplx8, cmplx8)
KA_COMPLEX(cmplx10, cmplx10)
#define KA_CMPLX4(op) void __kmpc_atomic_cmplx4_##op(kmpc_ident *, int, cmplx4 *, cmplx4);
#define KA_CMPLX4_CPT(op) void __kmpc_atomic_cmplx4_##op(kmpc_ident *, int, cmplx4 *, cmplx4, cmplx4 *, int);
KA_CMPLX4(add) KA_CMPLX4(sub) KA_CMPLX4(mul) KA_CMPLX4(div) KA_CMPLX4(sub_rev) KA_CMPLX4(div_rev)
KA_CMPLX4_CPT(add_cpt) KA_CMPLX4_CPT(sub_cpt) KA_CMPLX4_CPT(mul_cpt) KA_CMPLX4_CPT(div_cpt)
KA_CMPLX4_CPT(sub_cpt_rev) KA_CMPLX4_CPT(div_cpt_rev)
cmplx4 __kmpc_atomic_cmplx4_rd(kmpc_ident *, int, cmplx4 *);
void __kmpc_atomic_cmplx4_wr(kmpc_ident *, int, cmplx4 *, cmplx4);
void __kmpc_atomic_cmplx4_swp(kmpc_ident *, int, cmplx4 *, cmplx4, cmplx4 *);
void __kmpc_atomic_cmplx4_add_cmplx8(kmpc_ident *, int, cmplx4 *, cmplx8);
void __kmpc_atomic_cmplx4_sub_cmplx8(kmpc_ident *, int, cmplx4 *, cmplx8);
void __kmpc_atomic_cmplx4_mul_cmplx8(kmpc_ident *, int, cmplx4 *, cmplx8);
void __kmpc_atomic_cmplx4_div_cmplx8(kmpc_ident *, int, cmplx4 *, cmplx8);

#define KA_COMPARE(n, T)                                                                           \
  bool __kmpc_atomic_bool_##n##_cas(kmpc_ident *, int, T *, T, T);                                \
  T __kmpc_atomic_val_##n##_cas(kmpc_ident *, int, T *, T, T);                                    \
  bool __kmpc_atomic_bool_##n##_cas_cpt(kmpc_ident *, int, T *, T, T, T *);                       \
  T __kmpc_atomic_val_##n##_cas_cpt(kmpc_ident *, int, T *, T, T, T *);
KA_COMPARE(1, char)
KA_COMPARE(2, short)
KA_COMPARE(4, int)
KA_COMPARE(8, long long)

#define KA_GENERIC(n) void __kmpc_atomic_##n(kmpc_ident *, int, void *, void *, void (*)(void *, void *, void *));
KA_GENERIC(1) KA_GENERIC(2) KA_GENERIC(4) KA_GENERIC(8) KA_GENERIC(10) KA_GENERIC(16) KA_GENERIC(20) KA_GENERIC(32)
void __kmpc_atomic_start(void);
void __kmpc_atomic_end(void);

#endif
