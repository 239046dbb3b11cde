// Records a teehistorian file (to a path and through a write callback) and a demo through
// demokit's C ABI, the way a DDNet-style server would call it each tick, then exercises the
// error paths. ffi/tests/ffi.rs builds it against libdemokit_ffi (static and dynamic), runs
// it, and checks the files against what the Rust API writes for the same calls.
//
//   g++ -std=c++17 -Iffi/include ffi/examples/ffi_record.cpp target/debug/libdemokit_ffi.a
//       -lpthread -ldl -lm -o ffi_record   (one command)
//   ./ffi_record OUT_DIR
//
// Prints one line per check; exits 1 if any failed.

#include "demokit.h"

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

int failures = 0;

// Checks that `status` is `expected`; names the check and the last error.
void expect(const char *what, DemokitStatus status, DemokitStatus expected) {
    if (status == expected) {
        std::printf("ok %s: %s%s%s\n", what, demokit_status_name(status),
                    status == DEMOKIT_STATUS_OK ? "" : ": ", demokit_last_error());
    } else {
        std::printf("FAIL %s: got %s (%s), expected %s\n", what, demokit_status_name(status),
                    demokit_last_error(), demokit_status_name(expected));
        ++failures;
    }
}

// Aborts the script on an unexpected failure.
#define CHECK(call)                                                                        \
    do {                                                                                   \
        DemokitStatus s_ = (call);                                                         \
        if (s_ != DEMOKIT_STATUS_OK) {                                                     \
            std::printf("FAIL %s: %s: %s\n", #call, demokit_status_name(s_),              \
                        demokit_last_error());                                             \
            return false;                                                                  \
        }                                                                                  \
    } while (0)

const uint8_t CONNECTION_ID[16] = {0x6b, 0xe6, 0xda, 0x4a, 0xce, 0xbd, 0x38, 0x0c,
                                   0x9b, 0x5b, 0x12, 0x89, 0xc8, 0x42, 0xd7, 0x80};
const uint8_t SAVE_ID[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

DemokitThHeader *make_header() {
    DemokitThHeader *h = nullptr;
    if (demokit_th_header_new("2", &h) != DEMOKIT_STATUS_OK) return nullptr;
    demokit_th_header_set(h, "game_uuid", "0f3c1a4e-8a55-4d0b-9f41-6c2f6a2b7e10");
    demokit_th_header_set(h, "server_version", "0.6.4, 19.0");
    demokit_th_header_set(h, "start_time", "2026-11-24T12:00:00+0100");
    demokit_th_header_set(h, "server_name", "demokit ffi");
    demokit_th_header_set(h, "server_port", "8303");
    demokit_th_header_set(h, "game_type", "DDraceNetwork");
    demokit_th_header_set(h, "map_name", "dm1");
    demokit_th_header_set(h, "map_size", "5805");
    demokit_th_header_set(h, "map_crc", "a1b2c3d4");
    demokit_th_header_add_config(h, "sv_name", "demokit ffi");
    demokit_th_header_add_config(h, "sv_max_clients", "16");
    demokit_th_header_add_tuning(h, "gravity", "50");
    demokit_th_header_add_uuid(h, "teehistorian-test@ddnet.tw");
    demokit_th_header_add_uuid(h, "teehistorian-player-name@ddnet.org");
    return h;
}

// The server's tick loop, as ffi/tests/ffi.rs repeats it through the Rust API.
bool record_teehistorian(DemokitThRecorder *rec) {
    CHECK(demokit_th_record_join(rec, 0, 6));
    CHECK(demokit_th_record_ddnet_version(rec, 0, CONNECTION_ID, 16050, "DDNet 16.5"));
    CHECK(demokit_th_record_player_name(rec, 0, "nameless tee"));
    CHECK(demokit_th_record_join(rec, 1, 7));
    CHECK(demokit_th_record_auth_initial(rec, 1, 2, "moderator"));
    // The last slot of a 128-player server (DDNet's MAX_CLIENTS since 2024).
    CHECK(demokit_th_record_join(rec, 127, 7));
    CHECK(demokit_th_record_player_name(rec, 127, "slot 127"));
    for (int32_t tick = 1; tick <= 60; ++tick) {
        CHECK(demokit_th_begin_tick(rec, tick));
        CHECK(demokit_th_begin_players(rec));
        CHECK(demokit_th_record_player(rec, 0, 100 + tick, 200));
        if (tick % 10 == 0) {
            CHECK(demokit_th_record_dead_player(rec, 1));
        } else {
            CHECK(demokit_th_record_player(rec, 1, 300, 400 - tick / 3));
        }
        CHECK(demokit_th_record_player(rec, 127, 500 + tick % 4, 600));
        CHECK(demokit_th_end_players(rec));
        CHECK(demokit_th_begin_inputs(rec));
        int32_t input[10] = {tick % 3 - 1, 10 * tick, -20, tick % 2, 0, 0, 1, 0, 0, tick};
        CHECK(demokit_th_record_input(rec, 0, 1, input));
        if (tick % 5 == 0) {
            int32_t other[10] = {1, 0, 0, 1, 0, 0, 0, 0, 0, 0};
            CHECK(demokit_th_record_input(rec, 1, 2, other));
        }
        if (tick % 4 == 1) {
            int32_t last[10] = {tick % 2, 0, 0, 0, 1, 0, 0, 0, 0, 0};
            CHECK(demokit_th_record_input(rec, 127, 3, last));
        }
        if (tick == 7) {
            const uint8_t chat[] = {0x21, 0x00, 'h', 'i', 0x00};
            CHECK(demokit_th_record_player_message(rec, 0, chat, sizeof chat));
            const char *args[] = {"hello", "world"};
            CHECK(demokit_th_record_console_command(rec, 0, 1, "say", args, 2));
            CHECK(demokit_th_record_console_command(rec, -1, 0, "status", nullptr, 0));
        }
        if (tick == 20) {
            CHECK(demokit_th_record_test_extra(rec));
            CHECK(demokit_th_record_ddnet_version_old(rec, 1, 15000));
            CHECK(demokit_th_record_auth_login(rec, 0, 3, "admin"));
            CHECK(demokit_th_record_player_team(rec, 0, 1));
            CHECK(demokit_th_record_team_practice(rec, 1, true));
            CHECK(demokit_th_record_player_ready(rec, 0));
        }
        if (tick == 30) {
            CHECK(demokit_th_record_team_save_success(rec, 1, SAVE_ID, "save string"));
            CHECK(demokit_th_record_team_save_failure(rec, 2));
            CHECK(demokit_th_record_team_load_success(rec, 1, SAVE_ID, "save string"));
            CHECK(demokit_th_record_team_load_failure(rec, 3));
            CHECK(demokit_th_record_player_swap(rec, 0, 1));
            const uint8_t antibot[] = {0xde, 0xad, 0xbe, 0xef};
            CHECK(demokit_th_record_antibot(rec, antibot, sizeof antibot));
        }
        if (tick == 45) {
            CHECK(demokit_th_record_player_finish(rec, 0, 2250));
            CHECK(demokit_th_record_team_finish(rec, 1, 2250));
            CHECK(demokit_th_record_auth_logout(rec, 0));
            CHECK(demokit_th_record_join_version(rec, 1, 6));
            CHECK(demokit_th_record_player_rejoin(rec, 1));
        }
        CHECK(demokit_th_end_inputs(rec));
        CHECK(demokit_th_end_tick(rec));
    }
    CHECK(demokit_th_record_drop(rec, 1, "timeout"));
    CHECK(demokit_th_record_drop(rec, 127, "leaving"));
    CHECK(demokit_th_finish(rec));
    return true;
}

// A snapshot as DDNet stores it: data size, item count, offsets, then items of
// [key = type << 16 | id, data...], the data size counting item bytes. One flag (type 5)
// whose x moves every 10 ticks.
std::vector<int32_t> snapshot(int32_t tick) {
    return {16, 1, 0, (5 << 16) | 0, 100 + tick / 10, 200, 1};
}

bool record_demo(DemokitDemoRecorder *rec) {
    for (int32_t tick = 100; tick < 400; ++tick) {
        std::vector<int32_t> snap = snapshot(tick);
        CHECK(demokit_demo_record_snapshot(rec, tick, snap.data(), snap.size()));
        if (tick % 50 == 0) {
            const uint8_t chat[] = {0x06, 0x00, 0x40, 'g', 'g', 0x00};
            CHECK(demokit_demo_record_message(rec, chat, sizeof chat));
        }
        if (tick == 150 || tick == 300) {
            bool added = false;
            CHECK(demokit_demo_add_timeline_marker(rec, tick, &added));
            if (!added) {
                std::printf("FAIL timeline marker at %d not added\n", tick);
                return false;
            }
        }
    }
    // The low-level calls too: a keyframe and a delta written as ints.
    CHECK(demokit_demo_record_tick_marker(rec, 400, true));
    std::vector<int32_t> snap = snapshot(400);
    CHECK(demokit_demo_record_snapshot_ints(rec, snap.data(), snap.size()));
    CHECK(demokit_demo_record_tick_marker(rec, 401, false));
    const int32_t delta[] = {0, 1, 0, 5, 0, 1, 0, 0};
    CHECK(demokit_demo_record_delta_ints(rec, delta, sizeof delta / sizeof delta[0]));
    CHECK(demokit_demo_finish(rec));
    return true;
}

std::vector<uint8_t> demo_map() {
    std::vector<uint8_t> map(1000);
    for (size_t i = 0; i < map.size(); ++i) map[i] = static_cast<uint8_t>(i * 7 % 251);
    return map;
}

// The write callback: appends to a std::vector.
int32_t append(void *user, const uint8_t *data, size_t len) {
    auto *out = static_cast<std::vector<uint8_t> *>(user);
    out->insert(out->end(), data, data + len);
    return 0;
}

int32_t flushes = 0;
int32_t count_flush(void *) {
    ++flushes;
    return 0;
}

// A write callback that fails once `*budget` bytes are used up.
int32_t fail_after(void *user, const uint8_t *, size_t len) {
    auto *budget = static_cast<size_t *>(user);
    if (len > *budget) return -1;
    *budget -= len;
    return 0;
}

void error_paths(const std::string &dir) {
    DemokitThHeader *h = make_header();

    // Unwritable paths.
    DemokitThRecorder *th = nullptr;
    expect("teehistorian at an unwritable path",
           demokit_th_recorder_create_file("/nonexistent-dir/x.teehistorian", h, &th),
           DEMOKIT_STATUS_IO);
    if (th != nullptr) {
        std::printf("FAIL a failed create returned a handle\n");
        ++failures;
    }
    DemokitDemoConfig config = {};
    config.map_name = "dm1";
    config.timestamp = "2026-11-24_12-00-00";
    const uint8_t map[] = {1, 2, 3};
    DemokitDemoRecorder *demo = nullptr;
    expect("demo at an unwritable path",
           demokit_demo_recorder_start("/nonexistent-dir/x.demo", &config, map, sizeof map, &demo),
           DEMOKIT_STATUS_IO);

    // Null pointers.
    expect("null header", demokit_th_recorder_create_file((dir + "/n.th").c_str(), nullptr, &th),
           DEMOKIT_STATUS_NULL_POINTER);
    expect("null out", demokit_th_header_new("2", nullptr), DEMOKIT_STATUS_NULL_POINTER);
    expect("null recorder", demokit_th_begin_tick(nullptr, 1), DEMOKIT_STATUS_NULL_POINTER);
    expect("null write callback",
           demokit_th_recorder_create_callback(nullptr, nullptr, nullptr, h, &th),
           DEMOKIT_STATUS_NULL_POINTER);
    expect("null string", demokit_th_header_set(h, "map_name", nullptr), DEMOKIT_STATUS_NULL_POINTER);
    expect("null data with a length", demokit_demo_record_message(nullptr, nullptr, 4),
           DEMOKIT_STATUS_NULL_POINTER);
    DemokitDemoConfig no_map_name = config;
    no_map_name.map_name = nullptr;
    expect("demo config without map_name",
           demokit_demo_recorder_start((dir + "/n.demo").c_str(), &no_map_name, map, sizeof map, &demo),
           DEMOKIT_STATUS_NULL_POINTER);
    demokit_th_close(nullptr);
    demokit_demo_close(nullptr);
    demokit_th_header_free(nullptr);

    // Invalid UTF-8 and other bad arguments.
    expect("invalid UTF-8 in a header value", demokit_th_header_set(h, "map_name", "dm\xff"),
           DEMOKIT_STATUS_INVALID_UTF8);
    DemokitDemoConfig bad_name = config;
    bad_name.map_name = "\xc3\x28";
    expect("invalid UTF-8 in the demo's map name",
           demokit_demo_recorder_start((dir + "/u.demo").c_str(), &bad_name, map, sizeof map, &demo),
           DEMOKIT_STATUS_INVALID_UTF8);
    expect("unknown header key", demokit_th_header_set(h, "no_such_key", "1"),
           DEMOKIT_STATUS_INVALID_ARGUMENT);
    DemokitThHeader *v3 = nullptr;
    expect("header version 3", demokit_th_header_new("3", &v3), DEMOKIT_STATUS_INVALID_ARGUMENT);

    // Calls out of order, and after finish.
    std::vector<uint8_t> sink;
    if (demokit_th_recorder_create_callback(append, nullptr, &sink, h, &th) != DEMOKIT_STATUS_OK) {
        std::printf("FAIL create_callback: %s\n", demokit_last_error());
        ++failures;
        return;
    }
    expect("record_player before begin_players", demokit_th_record_player(th, 0, 1, 2),
           DEMOKIT_STATUS_OUT_OF_ORDER);
    expect("end_tick before begin_tick", demokit_th_end_tick(th), DEMOKIT_STATUS_OUT_OF_ORDER);
    expect("begin_tick", demokit_th_begin_tick(th, 5), DEMOKIT_STATUS_OK);
    expect("begin_tick twice", demokit_th_begin_tick(th, 6), DEMOKIT_STATUS_OUT_OF_ORDER);
    expect("begin_players", demokit_th_begin_players(th), DEMOKIT_STATUS_OK);
    expect("client id 128", demokit_th_record_player(th, 128, 0, 0), DEMOKIT_STATUS_INVALID_ARGUMENT);
    expect("protocol 5", demokit_th_record_join(th, 0, 5), DEMOKIT_STATUS_INVALID_ARGUMENT);
    expect("invalid UTF-8 in a drop reason", demokit_th_record_drop(th, 0, "\xff"),
           DEMOKIT_STATUS_INVALID_UTF8);
    expect("finish", demokit_th_finish(th), DEMOKIT_STATUS_OK);
    expect("a call after finish", demokit_th_begin_tick(th, 9), DEMOKIT_STATUS_OUT_OF_ORDER);
    expect("finish twice", demokit_th_finish(th), DEMOKIT_STATUS_OUT_OF_ORDER);
    demokit_th_close(th);

    // A sink that fails: the error is reported, later calls are refused.
    size_t budget = 2000;  // the header fits, a few hundred ticks do not
    if (demokit_th_recorder_create_callback(fail_after, nullptr, &budget, h, &th) != DEMOKIT_STATUS_OK) {
        std::printf("FAIL create_callback: %s\n", demokit_last_error());
        ++failures;
        return;
    }
    DemokitStatus status = DEMOKIT_STATUS_OK;
    for (int32_t tick = 1; tick < 100000 && status == DEMOKIT_STATUS_OK; ++tick) {
        demokit_th_begin_tick(th, tick);
        demokit_th_begin_players(th);
        demokit_th_record_player(th, 0, tick * 1000, tick * 1000);
        demokit_th_end_players(th);
        demokit_th_begin_inputs(th);
        demokit_th_end_inputs(th);
        status = demokit_th_end_tick(th);
    }
    expect("a failing write callback", status, DEMOKIT_STATUS_IO);
    expect("a call after the sink failed", demokit_th_begin_tick(th, 1000), DEMOKIT_STATUS_IO);
    demokit_th_close(th);

    // The demo recorder refuses a snapshot that does not parse, and calls after finish.
    if (demokit_demo_recorder_start((dir + "/e.demo").c_str(), &config, map, sizeof map, &demo) !=
        DEMOKIT_STATUS_OK) {
        std::printf("FAIL demo start: %s\n", demokit_last_error());
        ++failures;
        return;
    }
    const int32_t bad_snapshot[] = {8, 5, 0};
    expect("a snapshot that does not parse",
           demokit_demo_record_snapshot(demo, 1, bad_snapshot, 3), DEMOKIT_STATUS_INVALID_ARGUMENT);
    expect("demo finish", demokit_demo_finish(demo), DEMOKIT_STATUS_OK);
    expect("a demo call after finish", demokit_demo_record_tick_marker(demo, 2, true),
           DEMOKIT_STATUS_OUT_OF_ORDER);
    demokit_demo_close(demo);
    demokit_th_header_free(h);
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s OUT_DIR\n", argv[0]);
        return 2;
    }
    std::string dir = argv[1];

    DemokitThHeader *header = make_header();
    if (!header) {
        std::printf("FAIL header: %s\n", demokit_last_error());
        return 1;
    }

    // To a file.
    DemokitThRecorder *rec = nullptr;
    std::string th_path = dir + "/file.teehistorian";
    expect("create teehistorian file", demokit_th_recorder_create_file(th_path.c_str(), header, &rec),
           DEMOKIT_STATUS_OK);
    if (rec && !record_teehistorian(rec)) ++failures;
    demokit_th_close(rec);

    // Through a callback, into memory.
    std::vector<uint8_t> bytes;
    rec = nullptr;
    expect("create teehistorian callback",
           demokit_th_recorder_create_callback(append, count_flush, &bytes, header, &rec),
           DEMOKIT_STATUS_OK);
    if (rec && !record_teehistorian(rec)) ++failures;
    demokit_th_close(rec);
    demokit_th_header_free(header);
    std::printf("ok callback: %zu bytes, %d flushes\n", bytes.size(), flushes);
    FILE *f = std::fopen((dir + "/callback.teehistorian").c_str(), "wb");
    if (!f || std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size()) ++failures;
    if (f) std::fclose(f);

    // A demo.
    DemokitDemoConfig config = {};
    config.map_name = "dm1";
    config.timestamp = "2026-11-24_12-00-00";
    std::vector<uint8_t> map = demo_map();
    DemokitDemoRecorder *demo = nullptr;
    expect("start demo",
           demokit_demo_recorder_start((dir + "/ffi.demo").c_str(), &config, map.data(), map.size(), &demo),
           DEMOKIT_STATUS_OK);
    if (demo && !record_demo(demo)) ++failures;
    demokit_demo_close(demo);

    error_paths(dir);

    std::printf("%d failures\n", failures);
    return failures == 0 ? 0 : 1;
}
