// TEMPORARY local stub (not committed): replaced by the kms branch.
#include "kms/kms.h"
namespace cubby::kms {
struct KeyService::Impl {};
KeyService::KeyService(storage::Store*, const crypt::Key256*, std::string) : impl_(nullptr) {}
KeyService::~KeyService() = default;
Status KeyService::GenerateDataKey(std::string_view, std::string_view, DataKey*) { return {Code::kNotFound, "stub"}; }
Status KeyService::DecryptDataKey(std::string_view, std::string_view, std::string_view, crypt::DataKey*) { return {Code::kNotFound, "stub"}; }
Status KeyService::ResolveKey(std::string_view, std::string*) { return {Code::kNotFound, "stub"}; }
void KeyService::HandleApi(std::string_view, std::string_view, int64_t, int* s, std::string* j) { *s = 400; *j = "{}"; }
}
