// Bug 5b: the same buffer freed twice.
#include "check.h"

int main() {
    float* d_data;
    CHECK(cudaMalloc(&d_data, 1000 * sizeof(float)));
    CHECK(cudaFree(d_data));
    CHECK(cudaFree(d_data));  // fix: free once (and set the pointer to nullptr)
    std::printf("done\n");
}
