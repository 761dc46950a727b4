#include "tests/run_command.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>

extern char** environ;

namespace mlf {
namespace {

std::vector<std::string> ChildEnvironment(const RunOptions& options) {
  std::map<std::string, std::string> env;
  std::vector<std::string> order;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    const size_t eq = entry.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = entry.substr(0, eq);
    if (!env.count(key)) order.push_back(key);
    env[key] = entry.substr(eq + 1);
  }
  for (const auto& [key, value] : options.env) {
    if (value) {
      if (!env.count(key)) order.push_back(key);
      env[key] = *value;
    } else {
      env.erase(key);
    }
  }
  std::vector<std::string> out;
  for (const std::string& key : order) {
    if (env.count(key)) out.push_back(key + "=" + env[key]);
  }
  return out;
}

std::vector<char*> Pointers(std::vector<std::string>& words) {
  std::vector<char*> p;
  for (std::string& w : words) p.push_back(w.data());
  p.push_back(nullptr);
  return p;
}

// Reads both pipes until they are closed, without deadlocking on either.
void Drain(int out_fd, int err_fd, std::string* out, std::string* err) {
  pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
  std::string* sinks[2] = {out, err};
  int open = 2;
  char buf[65536];
  while (open > 0) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        sinks[i]->append(buf, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open;
      }
    }
  }
}

}  // namespace

CommandResult RunCommand(const std::vector<std::string>& argv, const RunOptions& options) {
  CommandResult result;
  if (argv.empty()) return result;
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) return result;
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    close(out_pipe[0]);
    close(out_pipe[1]);
    return result;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], STDERR_FILENO);
  if (!options.cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, options.cwd.c_str());

  std::vector<std::string> args = argv;
  std::vector<std::string> env = ChildEnvironment(options);
  std::vector<char*> arg_ptrs = Pointers(args);
  std::vector<char*> env_ptrs = Pointers(env);
  pid_t pid = -1;
  const int rc = argv[0].find('/') != std::string::npos
                     ? posix_spawn(&pid, arg_ptrs[0], &actions, nullptr, arg_ptrs.data(), env_ptrs.data())
                     : posix_spawnp(&pid, arg_ptrs[0], &actions, nullptr, arg_ptrs.data(), env_ptrs.data());
  posix_spawn_file_actions_destroy(&actions);
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (rc != 0) {
    close(out_pipe[0]);
    close(err_pipe[0]);
    result.err = "cannot start '" + argv[0] + "': " + std::strerror(rc);
    return result;
  }
  Drain(out_pipe[0], err_pipe[0], &result.out, &result.err);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return result;
  }
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signaled = true;
    result.exit_code = 128 + WTERMSIG(status);
  }
  return result;
}

std::string MlfBinary() {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const std::string base = srcdir != nullptr ? srcdir : ".";
  return base + "/mlfkit/tools/mlf/mlf";
}

std::string Describe(const std::vector<std::string>& argv, const CommandResult& r) {
  std::string s = "command:";
  for (const std::string& a : argv) s += " '" + a + "'";
  s += "\nexit: " + std::to_string(r.exit_code) + (r.signaled ? " (signal)" : "");
  s += "\nstdout:\n" + r.out.substr(0, 4000) + "\nstderr:\n" + r.err.substr(0, 4000);
  return s;
}

}  // namespace mlf
