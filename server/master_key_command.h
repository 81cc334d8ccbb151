// `cubby master-key rotate --data-dir DIR [--master-key-file OLD] --new-master-key-file NEW`:
// offline rotation of a data folder's master key (server/master_key.h RotateMasterKey): OLD
// (default DIR/master.key) is checked against DIR/keyring, the keyring's two root keys are
// re-wrapped under NEW, and, when the old key was the generated DIR/master.key, that file then
// holds NEW. No object is rewritten. --data-dir and --master-key-file default to
// CUBBY_DATA_DIR and CUBBY_MASTER_KEY_FILE, as for the server. Refused while a cubby runs on
// DIR. Exit codes: 0 rotated; 1 a cubby is running on DIR, or a file could not be read or
// written; 2 a bad command line, a missing or badly protected key file, OLD not the key of
// DIR's keyring, NEW the same key, or no keyring. Messages go to stderr ("cubby master-key:
// ..."), never any key material.
#pragma once

#include "server/config.h"

namespace cubby::server {

// argv[0] is "master-key".
int RunMasterKeyCommand(int argc, const char* const* argv, const EnvLookup& env);

}  // namespace cubby::server
