// What stampede keeps on its own host, and where: an agent's spool and a
// coordinator's submit token. The state directory is systemd's
// $STATE_DIRECTORY, /var/lib/stampede as root, $XDG_STATE_HOME/stampede or
// ~/.local/state/stampede otherwise.
#ifndef STAMPEDE_CLI_LOCAL_STATE_H_
#define STAMPEDE_CLI_LOCAL_STATE_H_

#include <string>

#include "common/status.h"

namespace stampede::cli {

std::string StateDir();
std::string DefaultSpoolDir();   // StateDir()/spool
std::string DefaultTokenPath();  // StateDir()/coordinator.token

// The coordinator's submit token at path: read if the file exists (it must
// be a regular file of this user that no one else can read), created with
// a new random token (mode 0600, directories 0700) if not. A restarted
// coordinator keeps its token, so a submitter following a run across the
// restart is still let in.
StatusOr<std::string> LoadOrCreateToken(const std::string& path);
// A submitter's read of the token; "" (not an error) if the file does not
// exist, so certificate-only submitters need no file.
StatusOr<std::string> ReadToken(const std::string& path);

}  // namespace stampede::cli

#endif  // STAMPEDE_CLI_LOCAL_STATE_H_
