#include "artifact/archive/foreign_archive.h"

namespace mlf {

Status JoinForeignProblems(const std::vector<Status>& problems) {
  if (problems.empty()) return Status::Ok();
  std::string message;
  for (const Status& p : problems) message += (message.empty() ? "" : "; ") + p.message();
  return Status(problems[0].code(), message);
}

}  // namespace mlf
