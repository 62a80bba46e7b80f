// fatal_report_flush.cu - a report that ends the program (here: cudaFree in a
// host function queued on a stream, which would wait for itself) must not lose
// what the program printed before it. Run with stdout a file, where it is
// fully buffered; the test looks for the first line before the report.
#include <cstdio>

void CUDART_CB free_from_the_device_thread(void* p) { cudaFree(p); }

int main() {
    std::printf("printed before the fatal report\n");
    void* p = nullptr;
    cudaMalloc(&p, 16);
    cudaLaunchHostFunc(0, free_from_the_device_thread, p);
    cudaDeviceSynchronize();
    std::printf("not reached\n");
    return 0;
}
