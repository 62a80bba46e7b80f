// managed_class_args.cu - blog style: C++ classes whose storage lives in
// managed memory, handed to kernels by value and by reference. A Label owns a
// managed character buffer: its copy constructor allocates a new buffer with
// cudaMallocManaged, its destructor frees it with cudaFree. A Record (key and
// label) is itself allocated in managed memory through operator new.
//   - by value: the launch copies the Record on the host (the copy
//     constructor runs there), the kernel works on that copy, and the host
//     destroys the copy (cudaFree in the destructor) after the launch call;
//     the caller's Record is untouched.
//   - by reference: the kernel works on the caller's Record itself.
//   - a derived label (a NamedLabel, allocated through operator new too) for
//     a `const Label&` and a `Label&` parameter. A reference parameter is
//     passed as the address of the caller's object: no copy is made, the
//     kernel's writes land in the object itself, and the object must live
//     where the GPU reaches it (managed memory here).
// With --host-object the program makes the classic mistake instead: a
// NamedLabel on the host's stack for the `const Label&` parameter. The GPU
// cannot read the host's stack, so the kernel stops with an illegal memory
// access and the program exits 1.
// Prints a line before the launches, which must not be lost whatever happens.
// Exits 0 only when every check holds.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#define CUDA_OK(call)                                                              \
    do {                                                                           \
        cudaError_t err_ = (call);                                                 \
        if (err_ != cudaSuccess) {                                                 \
            fprintf(stderr, "%s failed at line %d: %s\n", #call, __LINE__,         \
                    cudaGetErrorString(err_));                                     \
            exit(1);                                                               \
        }                                                                          \
    } while (0)

// Objects of a class deriving from this are allocated in managed memory.
struct InManagedMemory {
    void* operator new(size_t bytes) {
        void* p = nullptr;
        CUDA_OK(cudaMallocManaged(&p, bytes));
        CUDA_OK(cudaDeviceSynchronize());
        return p;
    }
    void operator delete(void* p) {
        CUDA_OK(cudaDeviceSynchronize());
        CUDA_OK(cudaFree(p));
    }
};

static int copiesMade = 0, buffersFreed = 0;  // host-side counters

class Label : public InManagedMemory {
public:
    Label() : size(0), text(nullptr) {}
    explicit Label(const char* s) : size(0), text(nullptr) { assign(s, strlen(s)); }
    Label(const Label& other) : size(0), text(nullptr) {
        assign(other.text, other.size);
        copiesMade++;
    }
    Label& operator=(const Label& other) {
        assign(other.text, other.size);
        return *this;
    }
    ~Label() {
        if (text) {
            CUDA_OK(cudaFree(text));
            buffersFreed++;
        }
    }
    __host__ __device__ char* chars() const { return text; }
    __host__ __device__ int length() const { return size; }

private:
    void assign(const char* s, int n) {
        char* fresh = nullptr;
        CUDA_OK(cudaMallocManaged(&fresh, n + 1));
        memcpy(fresh, s, n);
        fresh[n] = '\0';
        if (text) CUDA_OK(cudaFree(text));
        text = fresh;
        size = n;
    }
    int size;
    char* text;
};

class NamedLabel : public Label {
public:
    explicit NamedLabel(const char* s) : Label(s) {}
};

struct Record : public InManagedMemory {
    int key;
    Label label;
};

// Upper-cases the label and reports what it saw.
__global__ void shoutByValue(Record r, int* seenKey, char* seenText) {
    char* c = r.label.chars();
    for (int i = 0; i < r.label.length(); i++)
        if (c[i] >= 'a' && c[i] <= 'z') c[i] -= 'a' - 'A';
    *seenKey = r.key;
    for (int i = 0; i <= r.label.length(); i++) seenText[i] = c[i];
}

__global__ void shoutByReference(Record& r) {
    char* c = r.label.chars();
    for (int i = 0; i < r.label.length(); i++)
        if (c[i] >= 'a' && c[i] <= 'z') c[i] -= 'a' - 'A';
    r.key = -r.key;
}

__global__ void countUpper(const Label& l, int* count) {
    int n = 0;
    for (int i = 0; i < l.length(); i++)
        if (l.chars()[i] >= 'A' && l.chars()[i] <= 'Z') n++;
    *count = n;
}

__global__ void lowerFirst(Label& l) {
    char* c = l.chars();
    if (l.length() > 0 && c[0] >= 'A' && c[0] <= 'Z') c[0] += 'a' - 'A';
}

int main(int argc, char** argv) {
    const bool hostObject = argc > 1 && strcmp(argv[1], "--host-object") == 0;
    srand((unsigned)time(NULL));
    const int key = 1000 + rand() % 9000;
    char word[16];
    for (int i = 0; i < 12; i++) word[i] = 'a' + rand() % 26;
    word[12] = '\0';
    char shouted[16];
    for (int i = 0; i <= 12; i++) shouted[i] = word[i] ? word[i] - ('a' - 'A') : 0;

    printf("managed_class_args: key %d, label '%s'\n", key, word);

    Record* rec = new Record;
    rec->key = key;
    rec->label = Label(word);

    int* seenKey = nullptr;
    char* seenText = nullptr;
    CUDA_OK(cudaMallocManaged(&seenKey, sizeof(int)));
    CUDA_OK(cudaMallocManaged(&seenText, 16));

    int failures = 0;
    const int copiesBefore = copiesMade, freedBefore = buffersFreed;
    shoutByValue<<<1, 1>>>(*rec, seenKey, seenText);
    CUDA_OK(cudaGetLastError());
    // The launch's copy of the Record was destroyed on the host by now.
    if (copiesMade != copiesBefore + 1 || buffersFreed != freedBefore + 1) {
        printf("  by value: %d copies made and %d buffers freed by the launch, expected 1 and 1\n",
               copiesMade - copiesBefore, buffersFreed - freedBefore);
        failures++;
    }
    CUDA_OK(cudaDeviceSynchronize());
    if (*seenKey != key || strcmp(seenText, shouted) != 0) {
        printf("  by value: the kernel saw key %d '%s', expected %d '%s'\n", *seenKey, seenText,
               key, shouted);
        failures++;
    }
    if (rec->key != key || strcmp(rec->label.chars(), word) != 0) {
        printf("  by value: the caller's record changed to %d '%s'\n", rec->key,
               rec->label.chars());
        failures++;
    }

    shoutByReference<<<1, 1>>>(*rec);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaDeviceSynchronize());
    if (rec->key != -key || strcmp(rec->label.chars(), shouted) != 0) {
        printf("  by reference: the record is %d '%s', expected %d '%s'\n", rec->key,
               rec->label.chars(), -key, shouted);
        failures++;
    }

    {
        NamedLabel* named = new NamedLabel(shouted);  // managed memory, as a Label
        const int copies = copiesMade, freed = buffersFreed;
        countUpper<<<1, 1>>>(*named, seenKey);
        CUDA_OK(cudaGetLastError());
        CUDA_OK(cudaDeviceSynchronize());
        if (*seenKey != 12) {
            printf("  const reference: the kernel counted %d capitals, expected 12\n", *seenKey);
            failures++;
        }
        lowerFirst<<<1, 1>>>(*named);
        CUDA_OK(cudaGetLastError());
        CUDA_OK(cudaDeviceSynchronize());
        if (named->chars()[0] != word[0] || strcmp(named->chars() + 1, shouted + 1) != 0) {
            printf("  reference: the label is '%s', expected '%c%s'\n", named->chars(), word[0],
                   shouted + 1);
            failures++;
        }
        // References pass the object itself: neither launch copied it.
        if (copiesMade != copies || buffersFreed != freed) {
            printf("  references: %d copies made, %d buffers freed, expected none\n",
                   copiesMade - copies, buffersFreed - freed);
            failures++;
        }
        delete named;
    }

    if (hostObject) {
        NamedLabel onStack(shouted);  // host memory: a GPU cannot read it
        countUpper<<<1, 1>>>(onStack, seenKey);
        CUDA_OK(cudaGetLastError());
        CUDA_OK(cudaDeviceSynchronize());  // an illegal memory access
        printf("  host object: the kernel read a host stack object\n");
        failures++;
    }

    delete rec;
    CUDA_OK(cudaFree(seenKey));
    CUDA_OK(cudaFree(seenText));
    printf("managed_class_args key=%d failures=%d %s\n", key, failures, failures ? "FAILED" : "OK");
    return failures ? 1 : 0;
}
