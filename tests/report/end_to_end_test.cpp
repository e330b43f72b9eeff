// End to end: a real database written by the zkbatch executable with the cpu-ref
// backend (and the fault-injecting test plugin for failed partitions), then
//  - `zkbatch trace`, checked as JSON against the database,
//  - every saved query in results/queries/ through the stock sqlite3 shell, and the
//    numbers of phase_medians.sql and gpu_idle.sql against `zkbatch show`,
//  - `zkbatch report` opened in a headless Chromium: no console errors, figures there.
#include "html_scan.hpp"
#include "support/zkbatch_process.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

using zkbatch::test::CommandResult;
using zkbatch::test::read_file;

std::string quoted(const std::string& text) { return zkbatch::test::shell_quoted(text); }

// Runs a shell command line; stdout and stderr are captured through files.
CommandResult shell(const std::string& command_line, const fs::path& scratch) {
    return zkbatch::test::run_shell(command_line, scratch, std::chrono::minutes(5));
}

// An executable on PATH, or nothing.
std::optional<fs::path> find_program(const std::vector<std::string>& names) {
    const char* path = std::getenv("PATH");
    if (!path) return std::nullopt;
    std::stringstream folders(path);
    std::string folder;
    while (std::getline(folders, folder, ':')) {
        for (const auto& name : names) {
            const fs::path candidate = fs::path(folder) / name;
            if (access(candidate.c_str(), X_OK) == 0) return candidate;
        }
    }
    return std::nullopt;
}

using zkbatch::html_scan::count_of;

std::vector<std::string> split(const std::string& text, char separator) {
    std::vector<std::string> parts;
    std::stringstream stream(text);
    std::string part;
    while (std::getline(stream, part, separator)) parts.push_back(part);
    return parts;
}

// One database for the whole suite, five zkbatch runs at 2^8 (end_to_end_history.cpp).
// Every test is its own process: under ctest the database is made once, by the fixture
// test end_to_end_history, and each process reads its own copy (so no test can change
// what the others read); outside ctest the suite makes it.
class EndToEnd : public ::testing::Test {
protected:
    static std::unique_ptr<zkbatch::test::TempDir> scratch_;
    static fs::path dir_;
    static fs::path db_;
    static std::string setup_error_;

    static void SetUpTestSuite() {
        scratch_ = std::make_unique<zkbatch::test::TempDir>("zkbatch-report");
        dir_ = scratch_->path();
        db_ = dir_ / "history.db";
        if (const char* shared = std::getenv("ZKBATCH_END_TO_END_HISTORY")) {
            std::error_code error;
            fs::copy_file(shared, db_, error);
            if (error) setup_error_ = std::string("cannot copy the fixture's database ") + shared + ": " + error.message();
            return;
        }
        const CommandResult made =
            zkbatch::test::run_program({END_TO_END_HISTORY, db_.string()}, dir_, std::chrono::minutes(5));
        if (made.exit_code != 0)
            setup_error_ = "end_to_end_history exited " + std::to_string(made.exit_code) + ": " + made.err;
    }
    static void TearDownTestSuite() {
        scratch_.reset();
    }
    void SetUp() override { ASSERT_TRUE(setup_error_.empty()) << setup_error_; }

    CommandResult zkbatch(const std::string& arguments) const {
        return zkbatch::test::run_zkbatch_shell(arguments, dir_, std::chrono::minutes(5));
    }

    // Rows of a query on the database through the SQLite C library (not zkbatch).
    zkbatch::test::Rows query(const std::string& sql) const { return zkbatch::test::query(db_.string(), sql); }

    // A saved query run by the stock sqlite3 shell, as CSV rows keyed by column name.
    std::vector<std::map<std::string, std::string>> saved_query(const fs::path& file,
                                                                CommandResult* raw = nullptr) const {
        const auto sqlite3_shell = find_program({"sqlite3"});
        if (!sqlite3_shell) return {};
        const CommandResult result = shell(quoted(sqlite3_shell->string()) + " -bail -header -csv " +
                                               quoted(db_.string()) + " < " + quoted(file.string()),
                                           dir_);
        if (raw) *raw = result;
        std::vector<std::map<std::string, std::string>> rows;
        const auto lines = split(result.out, '\n');
        if (lines.empty()) return rows;
        const auto header = split(lines[0], ',');
        for (size_t i = 1; i < lines.size(); ++i) {
            if (lines[i].empty()) continue;
            auto cells = split(lines[i], ',');
            cells.resize(header.size());
            std::map<std::string, std::string> row;
            for (size_t c = 0; c < header.size(); ++c) row[header[c]] = cells[c];
            rows.push_back(std::move(row));
        }
        return rows;
    }

    // `zkbatch show RUN`: the rows of the table under the line starting with `title`
    // (first cell -> the other cells), up to the next blank line.
    std::map<std::string, std::vector<std::string>> show_table(int64_t run_id, const std::string& title) const {
        const CommandResult show = zkbatch("show " + std::to_string(run_id) + " --db " + quoted(db_.string()));
        EXPECT_EQ(show.exit_code, 0) << show.err;
        std::map<std::string, std::vector<std::string>> table;
        const auto lines = split(show.out, '\n');
        auto it = std::find_if(lines.begin(), lines.end(), [&](const std::string& l) { return l.starts_with(title); });
        if (it == lines.end()) return table;
        for (it += 2; it != lines.end() && !it->empty(); ++it) {  // skip the title and the header
            std::stringstream cells(*it);
            std::string first, cell;
            cells >> first;
            while (cells >> cell) table[first].push_back(cell);
        }
        return table;
    }
};

std::unique_ptr<zkbatch::test::TempDir> EndToEnd::scratch_;
fs::path EndToEnd::dir_;
fs::path EndToEnd::db_;
std::string EndToEnd::setup_error_;

const fs::path kQueries = fs::path(SOURCE_DIR) / "results" / "queries";

// ---------------------------------------------------------------------------------
// zkbatch trace
// ---------------------------------------------------------------------------------

TEST_F(EndToEnd, TraceOfARealRunIsWellNestedPerTrackAndComplete) {
    for (const int run_id : {1, 5}) {
        const fs::path file = dir_ / ("trace" + std::to_string(run_id) + ".json");
        const CommandResult result =
            zkbatch("trace " + std::to_string(run_id) + " -o " + quoted(file.string()) + " --db " + quoted(db_.string()));
        ASSERT_EQ(result.exit_code, 0) << result.err;
        const auto trace = nlohmann::json::parse(read_file(file));  // throws on invalid JSON

        std::map<int, std::string> thread_names;
        std::string process_name;
        struct Event {
            int64_t start_ns, end_ns;
            std::string name;
        };
        std::map<int, std::vector<Event>> by_tid;
        size_t failed_events = 0;
        for (const auto& event : trace.at("traceEvents")) {
            ASSERT_EQ(event.at("pid"), run_id);
            if (event.at("ph") == "M") {
                if (event.at("name") == "process_name") process_name = event.at("args").at("name");
                if (event.at("name") == "thread_name") thread_names[event.at("tid")] = event.at("args").at("name");
                continue;
            }
            ASSERT_EQ(event.at("ph"), "X");
            ASSERT_TRUE(event.at("args").contains("partition")) << event.dump();
            if (event.at("args").value("status", "") == "failed") ++failed_events;
            // Microseconds with 3 decimals are whole nanoseconds.
            const auto start_ns = std::llround(event.at("ts").get<double>() * 1000);
            const auto end_ns = start_ns + std::llround(event.at("dur").get<double>() * 1000);
            by_tid[event.at("tid")].push_back({start_ns, end_ns, event.at("name")});
        }
        EXPECT_EQ(process_name, "nightly / " + std::string(run_id == 5 ? "fault-inject" : "cpu-ref") +
                                    " / run " + std::to_string(run_id));

        // Complete: one event per recorded interval.
        size_t events = 0;
        for (const auto& [tid, list] : by_tid) events += list.size();
        const auto intervals = query("SELECT count(*) FROM phase_interval i JOIN partition p ON p.id = i.partition_id "
                                     "WHERE p.run_id = " + std::to_string(run_id));
        EXPECT_EQ(std::to_string(events), intervals.at(0).at(0));
        if (run_id == 5) {
            EXPECT_GT(failed_events, 0u);
        }

        // Every track named; the pipeline's lanes all there.
        for (const auto& [tid, list] : by_tid) EXPECT_TRUE(thread_names.count(tid)) << "tid " << tid;
        std::set<std::string> names;
        for (const auto& [tid, name] : thread_names) names.insert(name);
        for (const char* lane : {"synth.0", "prove.0", "prove.1", "finalize"}) EXPECT_TRUE(names.count(lane)) << lane;
        if (run_id == 1) {  // cpu-ref reports its kernels on lanes of its own
            EXPECT_TRUE(names.count("cpu0.worker0"));  // cpu<device>.worker<k>
        }

        // Well nested per tid: sorted by start (longest first), each event ends before
        // or with every open event that contains its start.
        for (auto& [tid, list] : by_tid) {
            std::sort(list.begin(), list.end(), [](const Event& a, const Event& b) {
                return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.end_ns > b.end_ns;
            });
            std::vector<const Event*> open;
            for (const Event& event : list) {
                while (!open.empty() && open.back()->end_ns <= event.start_ns) open.pop_back();
                ASSERT_TRUE(open.empty() || event.end_ns <= open.back()->end_ns)
                    << thread_names[tid] << ": " << event.name << " [" << event.start_ns << ", " << event.end_ns
                    << ") overlaps " << open.back()->name << " [" << open.back()->start_ns << ", "
                    << open.back()->end_ns << ") partly";
                open.push_back(&event);
            }
        }
    }
}

TEST_F(EndToEnd, TraceOfAnUnknownRunSaysSoWithTheStorageExitCode) {
    const CommandResult result = zkbatch("trace 99 -o " + quoted((dir_ / "x.json").string()) + " --db " + quoted(db_.string()));
    EXPECT_EQ(result.exit_code, 4);
    EXPECT_NE(result.err.find("no run 99"), std::string::npos) << result.err;
    EXPECT_FALSE(fs::exists(dir_ / "x.json"));
}

TEST_F(EndToEnd, TraceIntoAMissingFolderNamesTheFile) {
    const std::string target = (dir_ / "no-such-folder" / "t.json").string();
    const CommandResult result = zkbatch("trace 1 -o " + quoted(target) + " --db " + quoted(db_.string()));
    EXPECT_EQ(result.exit_code, 4);
    EXPECT_NE(result.err.find(target + ": cannot write the file"), std::string::npos) << result.err;
}

// ---------------------------------------------------------------------------------
// Outputs: never onto the database they read, never through a link, never mixed
// ---------------------------------------------------------------------------------

// -o given the database the command reads, by any name (its path, a link to it):
// refused with exit 2 before anything is written, and the database stays as it was.
TEST_F(EndToEnd, OutputsOntoTheDatabaseTheCommandReadsAreRefused) {
    const std::string before = read_file(db_);
    const fs::path link = dir_ / "link.db";
    fs::create_symlink(db_, link);
    for (const std::string& command : std::vector<std::string>{"report 1", "trace 1", "export 1"}) {
        for (const fs::path& target : {db_, link}) {
            SCOPED_TRACE(command + " -o " + target.string());
            const CommandResult result =
                zkbatch(command + " -o " + quoted(target.string()) + " --db " + quoted(db_.string()));
            EXPECT_EQ(result.exit_code, 2) << result.err;
            EXPECT_NE(result.err.find("which this command reads"), std::string::npos) << result.err;
        }
    }
    EXPECT_EQ(read_file(db_), before);
    EXPECT_TRUE(fs::is_symlink(link));
    // An empty path names no file (and an empty --db would be a temporary database).
    const std::string db = " --db " + quoted(db_.string());
    for (const std::string& empty :
         std::vector<std::string>{"report 1 -o ''" + db, "proofs 1 --out ''" + db, std::string("runs --db ''")}) {
        const CommandResult result = zkbatch(empty);
        EXPECT_EQ(result.exit_code, 2) << empty << ": " << result.err;
        EXPECT_NE(result.err.find("an empty path names no file"), std::string::npos) << result.err;
    }
}

// An output path holding a link is replaced, never written through: the file the link
// pointed to is untouched, and the path holds the whole new file. One that is not a
// regular file (a FIFO here; /dev/null for root) is refused, not replaced.
TEST_F(EndToEnd, OutputsReplaceALinkInsteadOfWritingThroughIt) {
    const fs::path fifo = dir_ / "fifo";
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    const CommandResult special = zkbatch("trace 1 -o " + quoted(fifo.string()) + " --db " + quoted(db_.string()));
    EXPECT_EQ(special.exit_code, 4) << special.err;
    EXPECT_NE(special.err.find("it is a FIFO (named pipe), not a regular file"), std::string::npos) << special.err;
    EXPECT_TRUE(fs::is_fifo(fifo));

    const fs::path victim = dir_ / "victim.txt", link = dir_ / "trace.json";
    zkbatch::test::write_file(victim, "not zkbatch's\n");
    fs::create_symlink(victim, link);
    const CommandResult result = zkbatch("trace 1 -o " + quoted(link.string()) + " --db " + quoted(db_.string()));
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(read_file(victim), "not zkbatch's\n");
    EXPECT_FALSE(fs::is_symlink(link));
    EXPECT_TRUE(nlohmann::json::parse(read_file(link)).contains("traceEvents"));
}

// An export into a folder that holds files is refused (an earlier run's proofs would
// stay beside this run's verifying key, which does not verify them) unless --force,
// which removes the earlier export's files first and leaves others alone; a link placed
// in the folder is removed, not followed.
TEST_F(EndToEnd, ProofExportsRefuseAFolderWithFilesUnlessForcedAndFollowNoLink) {
    const fs::path out = dir_ / "proofs", victim = dir_ / "victim.json";
    const std::string db = " --db " + quoted(db_.string());
    ASSERT_EQ(zkbatch("proofs 1 --out " + quoted(out.string()) + db).exit_code, 0);
    const std::string first_key = read_file(out / "verification_key.json");
    const CommandResult refused = zkbatch("proofs 2 --out " + quoted(out.string()) + db);
    EXPECT_EQ(refused.exit_code, 2) << refused.err;
    EXPECT_NE(refused.err.find("the folder holds files already"), std::string::npos) << refused.err;
    EXPECT_EQ(read_file(out / "verification_key.json"), first_key);

    zkbatch::test::write_file(out / "p9.proof.json", "an earlier run's proof\n");
    zkbatch::test::write_file(out / "notes.txt", "the user's\n");
    zkbatch::test::write_file(victim, "outside the folder\n");
    fs::remove(out / "p0.proof.json");
    fs::create_symlink(victim, out / "p0.proof.json");
    const CommandResult forced = zkbatch("proofs 2 --out " + quoted(out.string()) + " --force" + db);
    ASSERT_EQ(forced.exit_code, 0) << forced.err;
    EXPECT_FALSE(fs::exists(out / "p9.proof.json"));
    EXPECT_EQ(read_file(out / "notes.txt"), "the user's\n");
    EXPECT_EQ(read_file(victim), "outside the folder\n");
    EXPECT_FALSE(fs::is_symlink(out / "p0.proof.json"));
    EXPECT_TRUE(nlohmann::json::parse(read_file(out / "p0.proof.json")).contains("pi_a"));
}

// ---------------------------------------------------------------------------------
// Stored values no measurement gives
// ---------------------------------------------------------------------------------

// A phase time of infinity, 1e308 or a negative number in the database (a damaged one,
// or a shard merged from one) is refused by every command that computes with it (exit
// 4, naming the run, the partition and the phase), instead of looping forever or
// calling it an internal error.
TEST_F(EndToEnd, StoredTimesNoMeasurementGivesAreRefused) {
    for (const std::string& value : std::vector<std::string>{"9e999", "1e308", "-1"}) {
        SCOPED_TRACE(value);
        zkbatch::test::execute(db_.string(), "UPDATE partition SET prove_ms = " + value +
                                                 " WHERE run_id = 2 AND partition_index = 3");
        const std::vector<std::string> commands = {
            "compare 1 2", "compare --baseline 1 --candidate 2 --fail-on-regression 5",
            "report 1 2 -o " + quoted((dir_ / "r.html").string()), "show 2", "history --job nightly --metric prove"};
        for (const std::string& command : commands) {
            SCOPED_TRACE(command);
            const CommandResult result = zkbatch::test::run_zkbatch_shell(command + " --db " + quoted(db_.string()),
                                                                          dir_, std::chrono::seconds(60));
            EXPECT_EQ(result.exit_code, 4) << result.err;
            EXPECT_NE(result.err.find("run 2, partition 3: its prove time is stored as"), std::string::npos)
                << result.err;
        }
    }
    EXPECT_FALSE(fs::exists(dir_ / "r.html"));
    zkbatch::test::execute(db_.string(), "UPDATE partition SET prove_ms = 5 WHERE run_id = 2 AND partition_index = 3; "
                                         "UPDATE run SET wall_ms = 9e999 WHERE id = 2");
    const CommandResult wall = zkbatch("history --job nightly --metric wall_ms --db " + quoted(db_.string()));
    EXPECT_EQ(wall.exit_code, 4) << wall.err;
    EXPECT_NE(wall.err.find("run 2: its wall_ms is stored as inf"), std::string::npos) << wall.err;
}

// A number on the command line that is not finite would turn the gate off (a NaN
// compares false with everything): refused with exit 2, as out-of-range ones are.
TEST_F(EndToEnd, GateNumbersThatAreNotFiniteAreRefused) {
    const std::vector<std::string> options = {"--fail-on-regression nan", "--fail-on-regression inf",
                                              "--fail-on-regression 5 --min-change-ms nan",
                                              "--fail-on-regression 5 --min-change-ms -1", "--fail-on-regression 1e400"};
    for (const std::string& option : options) {
        const CommandResult result =
            zkbatch("compare --baseline 1 --candidate 2 " + option + " --db " + quoted(db_.string()));
        EXPECT_EQ(result.exit_code, 2) << option << ": " << result.err;
    }
    const CommandResult step = zkbatch("history --job nightly --min-step nan --db " + quoted(db_.string()));
    EXPECT_EQ(step.exit_code, 2) << step.err;
}

// ---------------------------------------------------------------------------------
// zkbatch show: idle gaps per prove worker
// ---------------------------------------------------------------------------------

TEST_F(EndToEnd, ShowListsIdleGapsPerProveWorkerSummingToTheIdleGapPhase) {
    const auto gaps = show_table(1, "idle gaps per prove worker");
    const auto phases = show_table(1, "phases (ms");
    ASSERT_FALSE(gaps.empty());
    ASSERT_TRUE(phases.count("idle_gap"));
    // Each worker's first partition has no gap: 6 partitions give 6 - (workers that
    // proved) gaps in all.
    int total_gaps = 0;
    for (const auto& [worker, cells] : gaps) {
        EXPECT_TRUE(worker == "prove.0" || worker == "prove.1") << worker;
        total_gaps += std::stoi(cells.at(0));
    }
    EXPECT_EQ(std::to_string(total_gaps), phases.at("idle_gap").at(0));
    const auto workers = query("SELECT count(DISTINCT prove_worker) FROM partition WHERE run_id = 1");
    EXPECT_EQ(total_gaps, 6 - std::stoi(workers.at(0).at(0)));
}

// ---------------------------------------------------------------------------------
// Saved queries
// ---------------------------------------------------------------------------------

TEST_F(EndToEnd, EverySavedQueryRunsInTheSqlite3ShellAndReturnsRows) {
    if (!find_program({"sqlite3"})) GTEST_SKIP() << "the sqlite3 shell is not installed (apt-get install sqlite3)";
    size_t files = 0;
    for (const auto& entry : fs::directory_iterator(kQueries)) {
        if (entry.path().extension() != ".sql") continue;
        ++files;
        const std::string text = read_file(entry.path());
        EXPECT_TRUE(text.starts_with("-- ")) << entry.path() << " must start with a comment saying what it answers";
        EXPECT_NE(text.find("sqlite3 "), std::string::npos) << entry.path() << " must say how to run it";
        CommandResult raw;
        const auto rows = saved_query(entry.path(), &raw);
        EXPECT_EQ(raw.exit_code, 0) << entry.path() << ": " << raw.err;
        EXPECT_EQ(raw.err, "") << entry.path();
        EXPECT_FALSE(rows.empty()) << entry.path() << " returned no rows";
    }
    EXPECT_GE(files, 7u);
}

TEST_F(EndToEnd, PhaseMediansQueryGivesTheNumbersOfZkbatchShow) {
    if (!find_program({"sqlite3"})) GTEST_SKIP() << "the sqlite3 shell is not installed (apt-get install sqlite3)";
    const auto rows = saved_query(kQueries / "phase_medians.sql");
    ASSERT_EQ(rows.size(), 5u);
    for (const auto& row : rows) {
        const int64_t run_id = std::stoll(row.at("run_id"));
        const auto phases = show_table(run_id, "phases (ms");
        ASSERT_FALSE(phases.empty()) << "run " << run_id;
        size_t compared = 0;
        for (const auto& [column, value] : row) {
            if (!column.ends_with("_ms")) continue;
            const std::string phase = column.substr(0, column.size() - 3);
            if (value.empty()) {
                EXPECT_FALSE(phases.count(phase)) << "run " << run_id << " " << phase;
                continue;
            }
            ASSERT_TRUE(phases.count(phase)) << "run " << run_id << " " << phase;
            // show prints the median with 3 decimals, the query rounds to 3 decimals.
            EXPECT_NEAR(std::stod(value), std::stod(phases.at(phase).at(1)), 1.0001e-3)
                << "run " << run_id << " " << phase;
            ++compared;
        }
        EXPECT_EQ(compared, phases.size()) << "run " << run_id;
    }
}

TEST_F(EndToEnd, GpuIdleQueryGivesTheIdleGapsOfZkbatchShow) {
    if (!find_program({"sqlite3"})) GTEST_SKIP() << "the sqlite3 shell is not installed (apt-get install sqlite3)";
    const auto rows = saved_query(kQueries / "gpu_idle.sql");  // the latest run: 5
    const auto gaps = show_table(5, "idle gaps per prove worker");
    ASSERT_FALSE(rows.empty());
    ASSERT_EQ(rows.size(), gaps.size());
    for (const auto& row : rows) {
        EXPECT_EQ(row.at("run_id"), "5");
        const auto& cells = gaps.at(row.at("worker"));
        EXPECT_EQ(row.at("gaps"), cells.at(0));
        const char* columns[] = {"total_ms", "median_ms", "p95_ms", "max_ms"};
        for (size_t c = 0; c < 4; ++c)
            EXPECT_NEAR(std::stod(row.at(columns[c])), std::stod(cells.at(c + 1)), 1.0001e-3) << columns[c];
    }
}

TEST_F(EndToEnd, ExperimentQueryPutsTheArmsSideBySide) {
    if (!find_program({"sqlite3"})) GTEST_SKIP() << "the sqlite3 shell is not installed (apt-get install sqlite3)";
    const auto rows = saved_query(kQueries / "experiment_ab.sql");
    const auto runs = query("SELECT id FROM run WHERE experiment_id = (SELECT max(id) FROM experiment) ORDER BY id");
    ASSERT_EQ(runs.size(), 2u);
    std::set<std::string> run_ids;
    bool synth_change_present = false;
    for (const auto& row : rows) {
        run_ids.insert(row.at("run_id"));
        if (row.at("phase") == "synth" && row.at("run_id") == runs[1][0]) {
            synth_change_present = !row.at("change_vs_first_arm_pct").empty();
        }
        if (row.at("run_id") == runs[0][0]) {
            EXPECT_EQ(row.at("change_vs_first_arm_pct"), "");
        }
    }
    EXPECT_EQ(run_ids, (std::set<std::string>{runs[0][0], runs[1][0]}));
    EXPECT_TRUE(synth_change_present);
}

// ---------------------------------------------------------------------------------
// zkbatch report in a real browser
// ---------------------------------------------------------------------------------

double number_or_zero(const std::map<std::string, std::string>& attrs, const std::string& name) {
    const auto it = attrs.find(name);
    return it == attrs.end() ? 0.0 : std::atof(it->second.c_str());
}

TEST_F(EndToEnd, ReportOpensInHeadlessChromiumWithoutErrorsAndWithItsFigures) {
    const auto chromium = find_program({"chromium", "chromium-browser"});
    if (!chromium) GTEST_SKIP() << "Chromium is not installed (apt-get install chromium; tools/setup.sh installs it)";

    const fs::path page = dir_ / "report.html";
    const CommandResult report =
        zkbatch("report 1 2 latest -o " + quoted(page.string()) + " --db " + quoted(db_.string()));
    ASSERT_EQ(report.exit_code, 0) << report.err;

    const fs::path profile = dir_ / "chromium-profile";
    const fs::path log = dir_ / "chromium.log";
    const std::string flags =
        " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking"
        " --disable-component-update --disable-sync --user-data-dir=" + quoted(profile.string()) +
        " --enable-logging=stderr --v=0";
    const CommandResult browser = shell("timeout 120 " + quoted(chromium->string()) + flags + " --dump-dom " +
                                            quoted("file://" + page.string()),
                                        dir_);
    ASSERT_EQ(browser.exit_code, 0) << browser.err;
    const std::string& dom = browser.out;

    // No console message at all (errors, blocked fetches, failed resources) ...
    for (const auto& line : split(browser.err, '\n')) EXPECT_EQ(line.find("CONSOLE"), std::string::npos) << line;
    // ... and the page's own check ran and saw no error.
    EXPECT_NE(dom.find("data-page-status=\"ok\""), std::string::npos) << dom.substr(0, 400);
    EXPECT_NE(dom.find("<title>zkbatch report: runs 1, 2, 5</title>"), std::string::npos);

    // The figures: a timeline per run and the distributions, each with a size and
    // drawn rectangles of non-zero size inside.
    size_t timelines = 0, distributions = 0;
    for (const std::string& svg : zkbatch::html_scan::elements(dom, "svg")) {
        const std::string start_tag = svg.substr(0, svg.find('>') + 1);
        const auto attrs = zkbatch::html_scan::attributes(start_tag);
        const std::string css_class = attrs.count("class") ? attrs.at("class") : "";
        if (css_class == "figure timeline") ++timelines;
        if (css_class == "figure distributions") ++distributions;
        EXPECT_GT(number_or_zero(attrs, "width"), 0) << start_tag;
        EXPECT_GT(number_or_zero(attrs, "height"), 0) << start_tag;
        size_t drawn = 0;
        for (const std::string& rect : zkbatch::html_scan::start_tags(svg, "rect")) {
            const auto rect_attrs = zkbatch::html_scan::attributes(rect);
            if (number_or_zero(rect_attrs, "width") > 0 && number_or_zero(rect_attrs, "height") > 0) ++drawn;
        }
        EXPECT_GT(drawn, 2u) << start_tag;
    }
    EXPECT_EQ(timelines, 3u);
    EXPECT_EQ(distributions, 1u);

    // The tag's HTML arrived as text, the comparison is there, the failed partition shows.
    EXPECT_EQ(dom.find("<b>'A'"), std::string::npos);
    EXPECT_NE(dom.find("&lt;b&gt;'A' &amp; \"B\"&lt;/b&gt;"), std::string::npos);
    EXPECT_NE(dom.find("A/B comparison"), std::string::npos);
    EXPECT_NE(dom.find("run 1 (A) against run 5 (B)"), std::string::npos);
    EXPECT_NE(dom.find("class=\"failed\""), std::string::npos);
}

TEST_F(EndToEnd, ReportOfAnExperimentComparesItsArms) {
    const auto runs = query("SELECT experiment_id, id FROM run WHERE experiment_id IS NOT NULL ORDER BY id");
    ASSERT_EQ(runs.size(), 2u);
    const fs::path page = dir_ / "experiment.html";
    const CommandResult result = zkbatch("report experiment=" + runs[0][0] + " -o " + quoted(page.string()) +
                                         " --db " + quoted(db_.string()));
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const std::string html = read_file(page);
    EXPECT_NE(html.find("run " + runs[0][1] + " (A) against run " + runs[1][1] + " (B)"), std::string::npos);
    EXPECT_EQ(count_of(html, "class=\"figure timeline\""), 2u);
}

TEST_F(EndToEnd, ReportOfAnUnknownRunWritesNothing) {
    const fs::path page = dir_ / "none.html";
    const CommandResult result = zkbatch("report 1 42 -o " + quoted(page.string()) + " --db " + quoted(db_.string()));
    EXPECT_EQ(result.exit_code, 4);
    EXPECT_NE(result.err.find("no run 42"), std::string::npos) << result.err;
    EXPECT_FALSE(fs::exists(page));
}

}  // namespace
