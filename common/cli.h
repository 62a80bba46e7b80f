/* cli.h - the few command-line flags a lesson program takes.
 *
 * Every lesson program accepts flags such as --n 1000 (or --n=1000), --block
 * 256 and --help. A bad value must never crash the program or run a kernel
 * with nonsense: it gets one clear line on stderr and exit code 2.
 *
 *   long long n = 1000, block = 256;
 *   cli_option opts[] = {
 *       {"--n", "number of elements", CLI_INT, &n, 1, 100000000},
 *       {"--block", "threads per block", CLI_INT, &block, 1, 1024},
 *   };
 *   cli_parse(argc, argv, "Adds two vectors on the GPU.", opts, 2);
 *
 * CLI_FLAG options take no value and set *value to 1 when present.
 * CLI_TEXT options take a word (a file or folder name) and point *text at it:
 *   const char* input = NULL;
 *   {"--input", "a PNG file", CLI_TEXT, NULL, 0, 0, &input},
 * Plain C so that lesson 01 can use it too.
 */
#ifndef TUTORIAL_CLI_H
#define TUTORIAL_CLI_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { CLI_INT, CLI_FLAG, CLI_TEXT } cli_kind;

typedef struct {
    const char* name; /* "--n" */
    const char* help; /* one line for --help */
    cli_kind kind;
    long long* value; /* in: default, out: parsed value */
    long long min, max; /* accepted range for CLI_INT */
    const char** text; /* CLI_TEXT only: in: default (may be NULL), out: the word given */
} cli_option;

static inline void cli_usage(FILE* out, const char* program, const char* summary,
                             const cli_option* opts, int count) {
    fprintf(out, "usage: %s [options]\n%s\n\noptions:\n", program, summary);
    for (int i = 0; i < count; ++i) {
        if (opts[i].kind == CLI_FLAG)
            fprintf(out, "  %-18s %s\n", opts[i].name, opts[i].help);
        else if (opts[i].kind == CLI_TEXT)
            fprintf(out, "  %-10s PATH    %s\n", opts[i].name, opts[i].help);
        else
            fprintf(out, "  %-10s N       %s (%lld to %lld, default %lld)\n",
                    opts[i].name, opts[i].help, opts[i].min, opts[i].max,
                    *opts[i].value);
    }
    fprintf(out, "  %-18s show this help\n", "--help");
}

/* Exits with code 2 after one line on stderr for any bad input; exits 0 after
 * printing the usage for --help. Returns only when every flag was good. */
static inline void cli_parse(int argc, char** argv, const char* summary,
                             cli_option* opts, int count) {
    const char* program = argc > 0 ? argv[0] : "program";
    for (int a = 1; a < argc; ++a) {
        const char* arg = argv[a];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            cli_usage(stdout, program, summary, opts, count);
            exit(0);
        }
        const char* eq = strchr(arg, '=');
        size_t name_len = eq ? (size_t)(eq - arg) : strlen(arg);
        cli_option* opt = NULL;
        for (int i = 0; i < count; ++i)
            if (strlen(opts[i].name) == name_len &&
                strncmp(opts[i].name, arg, name_len) == 0)
                opt = &opts[i];
        if (!opt) {
            fprintf(stderr, "error: unknown option '%s' (try --help)\n", arg);
            exit(2);
        }
        if (opt->kind == CLI_FLAG) {
            if (eq) {
                fprintf(stderr, "error: %s takes no value\n", opt->name);
                exit(2);
            }
            *opt->value = 1;
            continue;
        }
        const char* text = eq ? eq + 1 : (a + 1 < argc ? argv[++a] : NULL);
        if (opt->kind == CLI_TEXT) {
            if (!text || !*text) {
                fprintf(stderr, "error: %s needs a value\n", opt->name);
                exit(2);
            }
            *opt->text = text;
            continue;
        }
        if (!text || !*text) {
            fprintf(stderr, "error: %s needs a value (for example %s %lld)\n",
                    opt->name, opt->name, *opt->value);
            exit(2);
        }
        char* end = NULL;
        errno = 0;
        long long v = strtoll(text, &end, 10);
        if (*end != '\0' || errno == ERANGE) {
            fprintf(stderr, "error: %s expects a whole number, got '%s'\n",
                    opt->name, text);
            exit(2);
        }
        if (v < opt->min || v > opt->max) {
            fprintf(stderr, "error: %s must be between %lld and %lld, got %lld\n",
                    opt->name, opt->min, opt->max, v);
            exit(2);
        }
        *opt->value = v;
    }
}

#endif
