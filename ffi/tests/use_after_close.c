// Uses demokit's handles the way buggy C code does: closes a recorder twice, frees a header
// twice, records after finish and after close, passes a header as a recorder and a block
// demokit never returned. Each must be a status (or, for the void close and free, nothing
// but a message), never a read of freed memory: ffi/tests/ffi.rs compiles this against the
// static library and runs it natively and under valgrind with --error-exitcode, which fails
// on a read or free of freed memory, a decision on uninitialised bytes or a definite leak.
//
//   cc -std=c11 -Iffi/include ffi/tests/use_after_close.c target/debug/libdemokit_ffi.a
//      -lpthread -ldl -lm -o use_after_close   (one command)
//   ./use_after_close OUT_DIR
//
// Prints one line per check; exits 1 if any failed.

#include "demokit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

// Checks that `status` is `expected`; names the check and the last error.
static void expect(const char *what, DemokitStatus status, DemokitStatus expected) {
    if (status == expected) {
        printf("ok %s: %s: %s\n", what, demokit_status_name((int)status), demokit_last_error());
    } else {
        printf("FAIL %s: got %s (%s), expected %s\n", what, demokit_status_name((int)status),
               demokit_last_error(), demokit_status_name((int)expected));
        ++failures;
    }
}

// Checks the last error after a call that returns nothing: empty for `""`, else containing
// `part`.
static void expect_message(const char *what, const char *part) {
    const char *message = demokit_last_error();
    int ok = part[0] == '\0' ? message[0] == '\0' : strstr(message, part) != NULL;
    printf("%s %s: %s\n", ok ? "ok" : "FAIL", what, message);
    if (!ok) ++failures;
}

static void teehistorian(const char *dir) {
    char path[4096];
    snprintf(path, sizeof path, "%s/closed.teehistorian", dir);
    DemokitThHeader *h = NULL;
    expect("header_new", demokit_th_header_new("2", &h), DEMOKIT_STATUS_OK);
    expect("header_set", demokit_th_header_set(h, "map_name", "dm1"), DEMOKIT_STATUS_OK);
    DemokitThRecorder *th = NULL;
    expect("create_file", demokit_th_recorder_create_file(path, h, &th), DEMOKIT_STATUS_OK);

    // A header freed twice, and used after it was freed.
    demokit_th_header_free(h);
    expect_message("header_free", "");
    demokit_th_header_free(h);
    expect_message("header_free twice", "demokit_th_header_free: header is not a live handle");
    expect("header_set after free", demokit_th_header_set(h, "map_name", "dm2"),
           DEMOKIT_STATUS_CLOSED_HANDLE);
    expect("header_add_config after free", demokit_th_header_add_config(h, "sv_name", "x"),
           DEMOKIT_STATUS_CLOSED_HANDLE);
    DemokitThRecorder *other = NULL;
    expect("create_file with a freed header", demokit_th_recorder_create_file(path, h, &other),
           DEMOKIT_STATUS_CLOSED_HANDLE);
    if (other != NULL) {
        printf("FAIL create_file with a freed header made a recorder\n");
        ++failures;
    }

    // One tick, then calls after finish: the handle is live, the recording is over.
    const int32_t input[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    const uint8_t message[4] = {0x21, 0x00, 'h', 0x00};
    expect("record_join", demokit_th_record_join(th, 0, 6), DEMOKIT_STATUS_OK);
    expect("begin_tick", demokit_th_begin_tick(th, 1), DEMOKIT_STATUS_OK);
    expect("begin_players", demokit_th_begin_players(th), DEMOKIT_STATUS_OK);
    expect("record_player", demokit_th_record_player(th, 0, 100, 200), DEMOKIT_STATUS_OK);
    expect("end_players", demokit_th_end_players(th), DEMOKIT_STATUS_OK);
    expect("begin_inputs", demokit_th_begin_inputs(th), DEMOKIT_STATUS_OK);
    expect("record_input", demokit_th_record_input(th, 0, 1, input), DEMOKIT_STATUS_OK);
    expect("end_inputs", demokit_th_end_inputs(th), DEMOKIT_STATUS_OK);
    expect("end_tick", demokit_th_end_tick(th), DEMOKIT_STATUS_OK);
    expect("finish", demokit_th_finish(th), DEMOKIT_STATUS_OK);
    expect("begin_tick after finish", demokit_th_begin_tick(th, 2), DEMOKIT_STATUS_OUT_OF_ORDER);
    expect("record_join after finish", demokit_th_record_join(th, 1, 7),
           DEMOKIT_STATUS_OUT_OF_ORDER);
    expect("finish twice", demokit_th_finish(th), DEMOKIT_STATUS_OUT_OF_ORDER);

    // Closed: every call is refused, a second close does nothing.
    demokit_th_close(th);
    expect_message("close", "");
    expect("begin_tick after close", demokit_th_begin_tick(th, 3), DEMOKIT_STATUS_CLOSED_HANDLE);
    expect("record_player_message after close",
           demokit_th_record_player_message(th, 0, message, sizeof message),
           DEMOKIT_STATUS_CLOSED_HANDLE);
    expect("record_input after close", demokit_th_record_input(th, 0, 1, input),
           DEMOKIT_STATUS_CLOSED_HANDLE);
    expect("set_flush_every after close", demokit_th_set_flush_every(th, 5),
           DEMOKIT_STATUS_CLOSED_HANDLE);
    expect("flush after close", demokit_th_flush(th), DEMOKIT_STATUS_CLOSED_HANDLE);
    expect("finish after close", demokit_th_finish(th), DEMOKIT_STATUS_CLOSED_HANDLE);
    demokit_th_close(th);
    expect_message("close twice", "demokit_th_close: recorder is not a live handle");

    // Closed in the middle of a tick, without finish, then used.
    snprintf(path, sizeof path, "%s/unfinished.teehistorian", dir);
    h = NULL;
    th = NULL;
    expect("header_new again", demokit_th_header_new("2", &h), DEMOKIT_STATUS_OK);
    expect("create_file again", demokit_th_recorder_create_file(path, h, &th), DEMOKIT_STATUS_OK);
    demokit_th_header_free(h);
    expect("begin_tick (unfinished)", demokit_th_begin_tick(th, 1), DEMOKIT_STATUS_OK);
    demokit_th_close(th);
    expect("end_tick after close (unfinished)", demokit_th_end_tick(th),
           DEMOKIT_STATUS_CLOSED_HANDLE);
    demokit_th_close(th);
    expect_message("close twice (unfinished)", "not a live handle");
}

static void demo(const char *dir) {
    char path[4096];
    snprintf(path, sizeof path, "%s/closed.demo", dir);
    DemokitDemoConfig config;
    memset(&config, 0, sizeof config);
    config.map_name = "dm1";
    config.timestamp = "2026-11-24_12-00-00";
    const uint8_t map[16] = {0};
    const int32_t snapshot[7] = {16, 1, 0, 5 << 16, 100, 200, 1};
    DemokitDemoRecorder *demo = NULL;
    expect("demo start", demokit_demo_recorder_start(path, &config, map, sizeof map, &demo),
           DEMOKIT_STATUS_OK);
    expect("demo snapshot", demokit_demo_record_snapshot(demo, 1, snapshot, 7), DEMOKIT_STATUS_OK);
    expect("demo finish", demokit_demo_finish(demo), DEMOKIT_STATUS_OK);
    expect("demo snapshot after finish", demokit_demo_record_snapshot(demo, 2, snapshot, 7),
           DEMOKIT_STATUS_OUT_OF_ORDER);
    demokit_demo_close(demo);
    expect_message("demo close", "");
    bool added = true;
    expect("demo snapshot after close", demokit_demo_record_snapshot(demo, 3, snapshot, 7),
           DEMOKIT_STATUS_CLOSED_HANDLE);
    expect("demo tick marker after close", demokit_demo_record_tick_marker(demo, 3, true),
           DEMOKIT_STATUS_CLOSED_HANDLE);
    expect("demo timeline marker after close", demokit_demo_add_timeline_marker(demo, 3, &added),
           DEMOKIT_STATUS_CLOSED_HANDLE);
    expect("demo finish after close", demokit_demo_finish(demo), DEMOKIT_STATUS_CLOSED_HANDLE);
    demokit_demo_close(demo);
    expect_message("demo close twice", "demokit_demo_close: recorder is not a live handle");
}

// Pointers that never were handles of the kind the call takes: refused without a look at
// what they point to.
static void foreign_pointers(void) {
    // Allocated and never written: valgrind reports any decision made on what is in it.
    void *block = malloc(4096);
    if (block == NULL) {
        printf("FAIL malloc\n");
        ++failures;
        return;
    }
    expect("a block demokit never returned", demokit_th_begin_tick((DemokitThRecorder *)block, 1),
           DEMOKIT_STATUS_CLOSED_HANDLE);
    demokit_th_close((DemokitThRecorder *)block);
    expect_message("closing a block demokit never returned", "not a live handle");
    demokit_demo_close((DemokitDemoRecorder *)block);
    demokit_th_header_free((DemokitThHeader *)block);
    free(block);

    DemokitThHeader *h = NULL;
    expect("header_new", demokit_th_header_new("2", &h), DEMOKIT_STATUS_OK);
    expect("a header passed as a recorder", demokit_th_begin_tick((DemokitThRecorder *)(void *)h, 1),
           DEMOKIT_STATUS_CLOSED_HANDLE);
    demokit_demo_close((DemokitDemoRecorder *)(void *)h);
    expect("the header is still live", demokit_th_header_set(h, "map_name", "dm1"),
           DEMOKIT_STATUS_OK);
    demokit_th_header_free(h);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUT_DIR\n", argv[0]);
        return 2;
    }
    teehistorian(argv[1]);
    demo(argv[1]);
    foreign_pointers();
    printf("%d failures\n", failures);
    return failures == 0 ? 0 : 1;
}
