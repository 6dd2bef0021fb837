/* The libplist side of the peers benchmark: `harness-c DIR ROUNDS` reads one shape's inputs
 * (see make_inputs.py) and prints one line `operation<TAB>libplist<TAB>seconds` per timed
 * round. libplist 2.2 has no OpenStep reader. See run.sh. */
#include <plist/plist.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct { char *bytes; uint32_t length; } Blob;

static Blob read_file(const char *path) {
    Blob blob = {0, 0};
    FILE *file = fopen(path, "rb");
    if (!file) { fprintf(stderr, "cannot open %s\n", path); exit(1); }
    fseek(file, 0, SEEK_END);
    long length = ftell(file);
    fseek(file, 0, SEEK_SET);
    blob.bytes = calloc(1, length + 1); /* NUL-terminated: libplist 2.2's XML reader looks past the end */
    if (fread(blob.bytes, 1, length, file) != (size_t)length) { exit(1); }
    blob.length = (uint32_t)length;
    fclose(file);
    return blob;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

enum { SMALL = 1000 };
typedef struct { const char *name; int count; Blob binary[SMALL]; Blob xml[SMALL]; } Input;
static Input inputs[3];
static plist_t trees[SMALL];

static void report(int round, const char *operation, const Input *input, double seconds) {
    if (round) printf("%s-%s\tlibplist\t%.9f\n", operation, input->name, seconds);
}

static void check(plist_t value, const char *what) {
    if (!value) { fprintf(stderr, "libplist failed to parse %s\n", what); exit(1); }
}

static double parse(const Input *input, int xml) {
    for (int i = 0; i < input->count; i++) trees[i] = NULL;
    double start = now();
    for (int i = 0; i < input->count; i++) {
        if (xml) plist_from_xml(input->xml[i].bytes, input->xml[i].length, &trees[i]);
        else plist_from_bin(input->binary[i].bytes, input->binary[i].length, &trees[i]);
    }
    double elapsed = now() - start;
    for (int i = 0; i < input->count; i++) { check(trees[i], input->name); plist_free(trees[i]); }
    return elapsed;
}

static double write(const Input *input, int xml) {
    size_t total = 0;
    double start = now();
    for (int i = 0; i < input->count; i++) {
        char *out = NULL; uint32_t length = 0;
        if (xml) { plist_to_xml(trees[i], &out, &length); plist_to_xml_free(out); }
        else { plist_to_bin(trees[i], &out, &length); plist_to_bin_free(out); }
        total += length;
    }
    double elapsed = now() - start;
    if (total == 0) exit(1);
    return elapsed;
}

static double release(const Input *input) {
    double start = now();
    for (int i = 0; i < input->count; i++) plist_free(trees[i]);
    return now() - start;
}

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: harness-c DIR ROUNDS\n"); return 2; }
    char path[4096];
    const char *names[3] = {"small", "generic", "archive"};
    for (int k = 0; k < 3; k++) {
        Input *input = &inputs[k];
        input->name = names[k];
        input->count = k == 0 ? SMALL : 1;
        for (int i = 0; i < input->count; i++) {
            if (k == 0) snprintf(path, sizeof path, "%s/small/%04d.bplist", argv[1], i);
            else snprintf(path, sizeof path, "%s/%s.bplist", argv[1], names[k]);
            input->binary[i] = read_file(path);
            if (k == 0) snprintf(path, sizeof path, "%s/small/%04d.xml", argv[1], i);
            else snprintf(path, sizeof path, "%s/%s.xml", argv[1], names[k]);
            input->xml[i] = read_file(path);
        }
    }
    int rounds = atoi(argv[2]);
    /* Round 0 is the warm-up, not reported. Operations alternate within each round. */
    for (int round = 0; round <= rounds; round++) {
        for (int k = 0; k < 3; k++) {
            const Input *input = &inputs[k];
            report(round, "parse-binary", input, parse(input, 0));
            report(round, "parse-xml", input, parse(input, 1));
            for (int i = 0; i < input->count; i++) {
                trees[i] = NULL;
                plist_from_bin(input->binary[i].bytes, input->binary[i].length, &trees[i]);
                check(trees[i], input->name);
            }
            /* libplist 2.2's binary writer takes seconds on a 5 MB document: time it in the
             * first timed round only, so that a run ends in minutes (it is far from the fastest). */
            if (k == 0 || round == 1) report(round, "write-binary", input, write(input, 0));
            report(round, "write-xml", input, write(input, 1));
            report(round, "release", input, release(input));
        }
        fflush(stdout);
    }
    return 0;
}
