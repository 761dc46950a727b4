#include "artifact/base/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>

#include "artifact/base/shell_text.h"

extern char** environ;

namespace mlf {
namespace {

// Everything the child needs, prepared before fork(): after fork() only
// async-signal-safe calls are allowed.
struct ChildPlan {
  std::vector<std::string> argv_storage, env_storage;
  std::vector<char*> argv, envp;
  std::string cwd;
};

ChildPlan Plan(const std::vector<std::string>& argv, const ProcessOptions& options) {
  ChildPlan plan;
  plan.argv_storage = argv;
  for (std::string& a : plan.argv_storage) plan.argv.push_back(a.data());
  plan.argv.push_back(nullptr);
  for (char** e = environ; *e != nullptr; ++e) plan.env_storage.emplace_back(*e);
  for (const std::string& e : options.env) plan.env_storage.push_back(e);
  for (std::string& e : plan.env_storage) plan.envp.push_back(e.data());
  plan.envp.push_back(nullptr);
  plan.cwd = options.cwd;
  return plan;
}

// Reports exec failure through `error_fd` (close-on-exec, so a successful
// exec closes it with nothing written).
[[noreturn]] void RunChild(const ChildPlan& plan, int out_fd, int error_fd) {
  dup2(out_fd, STDOUT_FILENO);
  dup2(out_fd, STDERR_FILENO);
  int devnull = open("/dev/null", O_RDONLY);
  if (devnull >= 0) dup2(devnull, STDIN_FILENO);
  if (!plan.cwd.empty() && chdir(plan.cwd.c_str()) != 0) _exit(127);
  execvpe(plan.argv[0], plan.argv.data(), plan.envp.data());
  const int error = errno;
  ssize_t ignored = write(error_fd, &error, sizeof error);
  (void)ignored;
  _exit(127);
}

int DecodeWaitStatus(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 255;
}

}  // namespace

Result<ProcessResult> RunProcess(const std::vector<std::string>& argv,
                                 const ProcessOptions& options) {
  if (argv.empty()) return InvalidArgument("RunProcess: empty command");
  ChildPlan plan = Plan(argv, options);
  int pipe_fds[2], error_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) return ErrnoError("pipe");
  if (pipe2(error_fds, O_CLOEXEC) != 0) {
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    return ErrnoError("pipe");
  }
  pid_t pid = fork();
  if (pid < 0) {
    for (int fd : {pipe_fds[0], pipe_fds[1], error_fds[0], error_fds[1]}) close(fd);
    return ErrnoError("fork for " + argv[0]);
  }
  if (pid == 0) RunChild(plan, pipe_fds[1], error_fds[1]);
  close(pipe_fds[1]);
  close(error_fds[1]);

  ProcessResult result;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(options.timeout_seconds);
  bool killed = false;
  char buffer[65536];
  for (;;) {
    pollfd p{pipe_fds[0], POLLIN, 0};
    int wait_ms = -1;
    if (options.timeout_seconds > 0) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      wait_ms = left.count() > 0 ? static_cast<int>(left.count()) : 0;
    }
    int ready = poll(&p, 1, wait_ms);
    if (ready == 0 && !killed) {
      kill(pid, SIGKILL);
      killed = true;
      continue;
    }
    if (ready < 0 && errno == EINTR) continue;
    ssize_t n = read(pipe_fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    const size_t room = options.max_output - std::min(options.max_output, result.output.size());
    result.output.append(buffer, std::min(room, static_cast<size_t>(n)));
  }
  close(pipe_fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = DecodeWaitStatus(status);
  int exec_error = 0;
  const bool exec_failed = read(error_fds[0], &exec_error, sizeof exec_error) == sizeof exec_error;
  close(error_fds[0]);
  if (exec_failed && exec_error == ENOENT) {
    return NotFound("cannot run '" + argv[0] + "': program not found");
  }
  if (exec_failed) {
    errno = exec_error;
    return ErrnoError("cannot run '" + argv[0] + "'");
  }
  return result;
}

std::string CommandLine(const std::vector<std::string>& argv) {
  std::string line;
  for (const std::string& a : argv) line += (line.empty() ? "" : " ") + ShellWord(a);
  return line;
}

}  // namespace mlf
