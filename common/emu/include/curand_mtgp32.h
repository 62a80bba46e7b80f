// <curand_mtgp32.h> for emulator builds: the types of cuRAND's MTGP32
// generator (Saito and Matsumoto's Mersenne Twister for Graphic Processors,
// period 2^11213 - 1), with the toolkit's names, sizes and layouts, so that
// cudaMalloc(n * sizeof(curandStateMtgp32_t)) and the parameter sets a
// program hands to curandMakeMTGP32Constants match a GPU build.
//
// One state serves one whole block: its threads (at most 256) each make one
// number of a round together (cuemu/curand_mtgp32_device.h). The generator's
// parameter sets (200 of them, one per block) are cuRAND's own table
// (<curand_mtgp32dc_p_11213.h>); the emulator takes them from the CUDA
// toolkit's header when it was built where one is installed.
//
// The include guard is the toolkit's own: where the emulator reads the
// toolkit's table (src/curand_mtgp32_parameters.cpp), the toolkit's copy of
// this header must be skipped, never mixed with this one.
#ifndef CURAND_MTGP32_H
#define CURAND_MTGP32_H

#define MTGPDC_MEXP 11213
#define MTGPDC_N 351                  // words of state the recursion uses
#define MTGPDC_FLOOR_2P 256
#define MTGPDC_CEIL_2P 512
#define MTGPDC_PARAM_TABLE mtgp32dc_params_fast_11213
#define MTGP32_STATE_SIZE 1024        // a ring of words, indexed modulo its size
#define MTGP32_STATE_MASK 1023
#define CURAND_NUM_MTGP32_PARAMS 200  // parameter sets: at most 200 blocks
#define MEXP 11213
#define THREAD_NUM MTGPDC_FLOOR_2P    // the most threads one state serves
#define LARGE_SIZE (THREAD_NUM * 3)
#define TBL_SIZE 16

// One parameter set, as cuRAND's table lists it.
struct mtgp32_params_fast {
    int mexp;                        // the Mersenne exponent, 11213
    int pos;                         // where the recursion's third word is picked
    int sh1;                         // the recursion's shifts
    int sh2;
    unsigned int tbl[16];            // the recursion's small matrix
    unsigned int tmp_tbl[16];        // tempering
    unsigned int flt_tmp_tbl[16];    // tempering straight into a float's bits
    unsigned int mask;               // the state's top word keeps these bits
    unsigned char poly_sha1[21];     // the characteristic polynomial's digest
};
typedef struct mtgp32_params_fast mtgp32_params_fast_t;

// The parameter sets of every block, laid out as the device reads them
// (curandMakeMTGP32Constants fills one from a table).
struct mtgp32_kernel_params {
    unsigned int pos_tbl[CURAND_NUM_MTGP32_PARAMS];
    unsigned int param_tbl[CURAND_NUM_MTGP32_PARAMS][TBL_SIZE];
    unsigned int temper_tbl[CURAND_NUM_MTGP32_PARAMS][TBL_SIZE];
    unsigned int single_temper_tbl[CURAND_NUM_MTGP32_PARAMS][TBL_SIZE];
    unsigned int sh1_tbl[CURAND_NUM_MTGP32_PARAMS];
    unsigned int sh2_tbl[CURAND_NUM_MTGP32_PARAMS];
    unsigned int mask[1];
};
typedef struct mtgp32_kernel_params mtgp32_kernel_params_t;

// One block's state: the ring of words, where this round starts in it, which
// parameter set is the block's, and the sets themselves (device memory).
struct curandStateMtgp32 {
    unsigned int s[MTGP32_STATE_SIZE];
    int offset;
    int pIdx;
    mtgp32_kernel_params_t* k;
};
typedef struct curandStateMtgp32 curandStateMtgp32_t;

#endif
