// Probe (run by hand on a GPU: nvcc -arch=sm_90 -o p THIS.cu && ./p): what do mma.sync m8n8k4
// .f32.bf16 and .f32.tf32 compute? One experiment per warp: one-hot A x ones, ones x one-hot B,
// one-hot A x one-hot B, then random inputs against the layout the experiments imply.
// Finding (H200, CUDA 13.0): D never depends on A, B or C; see RULE(m8n8k4_bf16_tf32) in gen/table/rules.def.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>
#define SLOTS 128   // 32 lanes x 4 elements for A and for B
template <int T, int L> __device__ void mma(float *d, const uint32_t *a, const uint32_t *b, const float *c);
#define BF(L1,L2,IDX) template <> __device__ void mma<0,IDX>(float *d, const uint32_t *a, const uint32_t *b, const float *c) { \
 asm volatile("mma.sync.aligned.m8n8k4." #L1 "." #L2 ".f32.bf16.bf16.f32 {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9}, {%10,%11}, {%12,%13,%14,%15,%16,%17,%18,%19};" \
 : "=f"(d[0]),"=f"(d[1]),"=f"(d[2]),"=f"(d[3]),"=f"(d[4]),"=f"(d[5]),"=f"(d[6]),"=f"(d[7]) : "r"(a[0]),"r"(a[1]),"r"(b[0]),"r"(b[1]), \
   "f"(c[0]),"f"(c[1]),"f"(c[2]),"f"(c[3]),"f"(c[4]),"f"(c[5]),"f"(c[6]),"f"(c[7])); }
#define TF(L1,L2,IDX) template <> __device__ void mma<1,IDX>(float *d, const uint32_t *a, const uint32_t *b, const float *c) { \
 asm volatile("mma.sync.aligned.m8n8k4." #L1 "." #L2 ".f32.tf32.tf32.f32 {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9,%10,%11}, {%12,%13,%14,%15}, {%16,%17,%18,%19,%20,%21,%22,%23};" \
 : "=f"(d[0]),"=f"(d[1]),"=f"(d[2]),"=f"(d[3]),"=f"(d[4]),"=f"(d[5]),"=f"(d[6]),"=f"(d[7]) : "r"(a[0]),"r"(a[1]),"r"(a[2]),"r"(a[3]),"r"(b[0]),"r"(b[1]),"r"(b[2]),"r"(b[3]), \
   "f"(c[0]),"f"(c[1]),"f"(c[2]),"f"(c[3]),"f"(c[4]),"f"(c[5]),"f"(c[6]),"f"(c[7])); }
BF(row,col,0) BF(row,row,1) BF(col,col,2) BF(col,row,3)
TF(row,col,0) TF(row,row,1) TF(col,col,2) TF(col,row,3)
// in: per experiment, per lane: 4 A elements, 4 B elements, 8 C (as float values). out: 8 D per lane
template <int T, int L> __global__ void k(const float *av, const float *bv, const float *cv, float *out) {
  int e = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x % 32;
  const float *A = av + ((size_t)e * 32 + lane) * 4, *B = bv + ((size_t)e * 32 + lane) * 4, *C = cv + ((size_t)e * 32 + lane) * 8;
  uint32_t a[4], b[4]; float c[8], d[8];
  for (int i = 0; i < 8; i++) c[i] = C[i];
  if (T == 0) { for (int r = 0; r < 2; r++) { uint32_t lo = __float_as_uint(A[2*r]) >> 16, hi = __float_as_uint(A[2*r+1]) >> 16; a[r] = lo | hi << 16;
                 lo = __float_as_uint(B[2*r]) >> 16; hi = __float_as_uint(B[2*r+1]) >> 16; b[r] = lo | hi << 16; } }
  else { for (int r = 0; r < 4; r++) { a[r] = __float_as_uint(A[r]); b[r] = __float_as_uint(B[r]); } }
  mma<T, L>(d, a, b, c);
  for (int i = 0; i < 8; i++) out[((size_t)e * 32 + lane) * 8 + i] = d[i];
}
typedef void (*kfn)(const float *, const float *, const float *, float *);
static kfn kern[2][4] = { {k<0,0>,k<0,1>,k<0,2>,k<0,3>}, {k<1,0>,k<1,1>,k<1,2>,k<1,3>} };
static const char *lname[4] = {"row.col","row.row","col.col","col.row"};
static std::vector<float> run(int T, int L, const std::vector<float> &A, const std::vector<float> &B, const std::vector<float> &C, int nexp) {
  float *da, *db, *dc, *dd; size_t na = A.size() * 4, nc = C.size() * 4;
  cudaMalloc(&da, na); cudaMalloc(&db, na); cudaMalloc(&dc, nc); cudaMalloc(&dd, nc);
  cudaMemcpy(da, A.data(), na, cudaMemcpyHostToDevice); cudaMemcpy(db, B.data(), na, cudaMemcpyHostToDevice); cudaMemcpy(dc, C.data(), nc, cudaMemcpyHostToDevice);
  cudaMemset(dd, 0xff, nc);
  kern[T][L]<<<nexp / 4, 128>>>(da, db, dc, dd);
  std::vector<float> D(C.size()); cudaMemcpy(D.data(), dd, nc, cudaMemcpyDeviceToHost);
  cudaError_t err = cudaGetLastError(); if (err) { printf("cuda error %s\n", cudaGetErrorString(err)); exit(1); }
  cudaFree(da); cudaFree(db); cudaFree(dc); cudaFree(dd); return D;
}
int main() {
  srand(7);
  for (int T = 0; T < 2; T++) for (int L = 0; L < 4; L++) {
    // E1: A one-hot at slot s, B all ones -> row signature of s; E2: B one-hot, A ones -> column signature
    int n = SLOTS;
    std::vector<float> A(n * 128, 0), B(n * 128, 0), C(n * 256, 0);
    for (int s = 0; s < n; s++) { A[s * 128 + s] = 1; for (int j = 0; j < 128; j++) B[s * 128 + j] = 1; }
    std::vector<float> D1 = run(T, L, A, B, C, n);
    std::fill(A.begin(), A.end(), 0); std::fill(B.begin(), B.end(), 0);
    for (int s = 0; s < n; s++) { B[s * 128 + s] = 1; for (int j = 0; j < 128; j++) A[s * 128 + j] = 1; }
    std::vector<float> D2 = run(T, L, A, B, C, n);
    // row set of A slot s = set of D slots nonzero in E1 (a 'row'); col set similarly
    if (L == 0) { printf("E1 s=0 lane0..3 D:"); for (int q = 0; q < 32; q++) printf(" %g", D1[q]); printf("\nE1 s=5:"); for (int q = 0; q < 32; q++) printf(" %g", D1[5*256+q]); printf("\nE2 s=0:"); for (int q = 0; q < 32; q++) printf(" %g", D2[q]); printf("\n"); }
    // E3: k matching: A slot sa and B slot sb one-hot -> D nonzero at one slot iff same qp & k
    std::vector<float> A3((size_t)n * n * 128, 0), B3((size_t)n * n * 128, 0), C3((size_t)n * n * 256, 0);
    for (int sa = 0; sa < n; sa++) for (int sb = 0; sb < n; sb++) { size_t e = sa * n + sb; A3[e * 128 + sa] = 1; B3[e * 128 + sb] = 2; }
    std::vector<float> D3 = run(T, L, A3, B3, C3, n * n);
    // derive: D slot -> (rowid, colid) where rowid = A slots row class, etc. Represent row of A slot s by min D slot in E1 signature.
    // Model: value of D slot q = C[q] + sum over (sa,sb) with E3[sa,sb] nonzero at q of A[sa]*B[sb]
    // count structure
    int bad = 0, nz1 = 0, pairs = 0;
    for (int s = 0; s < n; s++) for (int q = 0; q < 256; q++) { if (D1[s * 256 + q] != 0) nz1++; if (D1[s*256+q] != 0 && D1[s*256+q] != 1) bad++; }
    std::vector<std::vector<std::pair<int,int>>> contrib(256);
    for (int sa = 0; sa < n; sa++) for (int sb = 0; sb < n; sb++) { size_t e = sa * n + sb; for (int q = 0; q < 256; q++) { float v = D3[e * 256 + q];
      if (v != 0) { pairs++; if (v != 2) bad++; contrib[q].push_back({sa, sb}); } } }
    // random test with the deduced model
    int mism = 0; double maxerr = 0; int trials = 64;
    std::vector<float> RA(trials * 128), RB(trials * 128), RC(trials * 256);
    auto rnd = [&](bool tf) { float v = (float)((rand() % 2001) - 1000) / 256.0f; if (!tf) { uint32_t u; memcpy(&u, &v, 4); u &= 0xffff0000u; memcpy(&v, &u, 4);} else { uint32_t u; memcpy(&u,&v,4); u &= 0xffffe000u; memcpy(&v,&u,4);} return v; };
    for (auto &x : RA) x = rnd(T); for (auto &x : RB) x = rnd(T); for (auto &x : RC) x = rnd(true);
    std::vector<float> RD = run(T, L, RA, RB, RC, trials);
    for (int t = 0; t < trials; t++) for (int q = 0; q < 256; q++) { double ref = RC[t * 256 + q];
      for (auto &p : contrib[q]) ref += (double)RA[t * 128 + p.first] * RB[t * 128 + p.second];
      double err = fabs(ref - RD[t * 256 + q]); if (err > maxerr) maxerr = err; if (err > 1e-3 * (1 + fabs(ref))) mism++; }
    // per-D-slot number of products: a true 8x8x4 product per quad-pair gives 4 per D slot
    int minc = 1 << 30, maxc = 0; for (int q = 0; q < 256; q++) { int c = contrib[q].size(); if (c < minc) minc = c; if (c > maxc) maxc = c; }
    printf("%s %s: E1 nonzeros %d, E3 product pairs %d, products per D element %d..%d, bad values %d, random check mismatches %d (max err %.3g)\n",
      T ? "tf32" : "bf16", lname[L], nz1, pairs, minc, maxc, bad, mism, maxerr);
    // dump mapping for the doc: for each D slot q=(lane,i) the list of (A slot, B slot)
    char fn[64]; snprintf(fn, sizeof fn, "%s/map_%s_%s.txt", getenv("OUT") ? getenv("OUT") : ".", T ? "tf32" : "bf16", lname[L]);
    if (0) { FILE *f = fopen(fn, "w"); for (int q = 0; q < 256; q++) { fprintf(f, "D lane %d reg %d:", q / 8, q % 8); for (auto &p : contrib[q]) fprintf(f, " A(l%d,e%d)*B(l%d,e%d)", p.first/4, p.first%4, p.second/4, p.second%4); fprintf(f, "\n"); } fclose(f); }
  }
}
