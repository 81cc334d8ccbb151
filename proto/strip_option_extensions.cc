// Build-time tool: reads a FileDescriptorSet (protoc --include_imports --descriptor_set_out),
// removes the top-level `extend` declarations of the one file named on the command line, and
// writes the set back. protoc then generates C++ from the rewritten set (--descriptor_set_in).
//
// Why: cosi.proto (cosi.v1alpha1) and cosi_v1alpha2.proto (sigs.k8s.io.cosi.v1alpha2) both
// declare the same option extensions with the same numbers (cosi_secret = 1115 on FieldOptions,
// alpha_* = 1116 on Enum/EnumValue/Field/Message/Method/ServiceOptions). libprotobuf refuses a
// second registration of an extension number at static initialization (descriptor_database.cc
// "Extension conflicts with extension already in database", then a FATAL CHECK), so the two
// generated files cannot link into one binary as they are. The annotations on v1alpha2's fields
// stay in the descriptor as option bytes with the same numbers and meaning; the generated pool
// reads them through v1alpha1's identical extensions. Nothing else changes: messages, services,
// method paths and the wire format are exactly the .proto's.
//
// Usage: strip_option_extensions IN.pb OUT.pb FILE.proto   (exit 0 on success)
#include <google/protobuf/descriptor.pb.h>

#include <fstream>
#include <iostream>
#include <string>

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: strip_option_extensions IN.pb OUT.pb FILE.proto\n";
    return 2;
  }
  google::protobuf::FileDescriptorSet set;
  std::ifstream in(argv[1], std::ios::binary);
  if (!in || !set.ParseFromIstream(&in)) {
    std::cerr << "strip_option_extensions: cannot read " << argv[1] << "\n";
    return 1;
  }
  bool found = false;
  for (google::protobuf::FileDescriptorProto& file : *set.mutable_file()) {
    if (file.name() != argv[3]) continue;
    found = true;
    file.clear_extension();
  }
  if (!found) {
    std::cerr << "strip_option_extensions: " << argv[3] << " is not in " << argv[1] << "\n";
    return 1;
  }
  std::ofstream out(argv[2], std::ios::binary | std::ios::trunc);
  if (!out || !set.SerializeToOstream(&out)) {
    std::cerr << "strip_option_extensions: cannot write " << argv[2] << "\n";
    return 1;
  }
  return 0;
}
