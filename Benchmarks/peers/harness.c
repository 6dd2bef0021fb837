/* The libplist side of the peers benchmark: `harness-c DIR ROUNDS` prints one line
 * `operation<TAB>libplist<TAB>seconds` per timed round. See run.sh. */
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
    blob.bytes = malloc(length ? length : 1);
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

static void report(const char *operation, double seconds) {
    printf("%s\tlibplist\t%.9f\n", operation, seconds);
}

enum { SMALL = 1000 };
static Blob small[SMALL], generic_bin, generic_xml, archive;

static void check(plist_t value, const char *what) {
    if (!value) { fprintf(stderr, "libplist failed to parse %s\n", what); exit(1); }
}

static double parse_binary_small(void) {
    static plist_t trees[SMALL];
    double start = now();
    for (int i = 0; i < SMALL; i++) plist_from_bin(small[i].bytes, small[i].length, &trees[i]);
    double elapsed = now() - start;
    for (int i = 0; i < SMALL; i++) { check(trees[i], "a small plist"); plist_free(trees[i]); }
    return elapsed;
}

static double write_xml_small(void) {
    static plist_t trees[SMALL];
    for (int i = 0; i < SMALL; i++) { plist_from_bin(small[i].bytes, small[i].length, &trees[i]); check(trees[i], "small"); }
    size_t total = 0;
    double start = now();
    for (int i = 0; i < SMALL; i++) {
        char *xml = NULL; uint32_t length = 0;
        plist_to_xml(trees[i], &xml, &length);
        total += length;
        plist_to_xml_free(xml);
    }
    double elapsed = now() - start;
    for (int i = 0; i < SMALL; i++) plist_free(trees[i]);
    if (total == 0) exit(1);
    return elapsed;
}

static double parse_one(Blob blob, int xml) {
    plist_t tree = NULL;
    double start = now();
    if (xml) plist_from_xml(blob.bytes, blob.length, &tree); else plist_from_bin(blob.bytes, blob.length, &tree);
    double elapsed = now() - start;
    check(tree, "a large plist");
    plist_free(tree);
    return elapsed;
}

static double release_generic(void) {
    plist_t tree = NULL;
    plist_from_bin(generic_bin.bytes, generic_bin.length, &tree);
    check(tree, "generic");
    double start = now();
    plist_free(tree);
    return now() - start;
}

static double write_one(Blob blob, int xml) {
    plist_t tree = NULL;
    plist_from_bin(blob.bytes, blob.length, &tree);
    check(tree, "a large plist");
    char *out = NULL; uint32_t length = 0;
    double start = now();
    if (xml) { plist_to_xml(tree, &out, &length); plist_to_xml_free(out); }
    else { plist_to_bin(tree, &out, &length); plist_to_bin_free(out); }
    double elapsed = now() - start;
    plist_free(tree);
    if (length == 0) exit(1);
    return elapsed;
}

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: harness-c DIR ROUNDS\n"); return 2; }
    char path[4096];
    for (int i = 0; i < SMALL; i++) {
        snprintf(path, sizeof path, "%s/small/%04d.bplist", argv[1], i);
        small[i] = read_file(path);
    }
    snprintf(path, sizeof path, "%s/generic.bplist", argv[1]); generic_bin = read_file(path);
    snprintf(path, sizeof path, "%s/generic.xml", argv[1]); generic_xml = read_file(path);
    snprintf(path, sizeof path, "%s/archive.bplist", argv[1]); archive = read_file(path);
    int rounds = atoi(argv[2]);
    /* Round 0 is the warm-up, not reported. Operations alternate within each round. */
    for (int round = 0; round <= rounds; round++) {
        double t;
        t = parse_binary_small(); if (round) report("parse-binary-small", t);
        t = write_xml_small(); if (round) report("write-xml-small", t);
        t = release_generic(); if (round) report("release-generic", t);
        t = parse_one(generic_bin, 0); if (round) report("parse-binary-generic", t);
        t = parse_one(generic_xml, 1); if (round) report("parse-xml-generic", t);
        t = write_one(archive, 1); if (round) report("write-xml-archive", t);
        fflush(stdout);
    }
    return 0;
}
