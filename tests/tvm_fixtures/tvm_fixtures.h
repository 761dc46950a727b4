// TVM-layout Model Library Format archives, built by the tests themselves
// (no TVM here): metadata.json of versions 5, 6 and 7, C code written by
// hand the way TVM's AOT executor with the C interface generated it (the
// run wrapper in <mod>_lib0.c, the operators and ___tvm_main__ or the older
// _run_model in <mod>_lib1.c, TVMBackendAllocWorkspace for intermediates, or
// USMP pools as static arrays), the interface header, the Relay text, .params
// files, graph executor JSON, operator-style metadata, and tar files laid out
// as Python's tarfile wrote them ("." and directory members, "./" names,
// uid 0 "root"), with members appended later by other tools.
//
// Fixtures (files keyed by member path, without "./"):
//
//   DenseV7()      v7, module "default", AOT + C interface. Input
//                  "serving_default_input_1:0" float32[1,4] (C name
//                  serving_default_input_1_0), output "output" float32[1,3] =
//                  relu(x W^T + b); W, b linked as constants; the intermediate
//                  and the dense operator's scratch come from
//                  TVMBackendAllocWorkspace (workspace_size_bytes 32 = 16 + 16).
//                  Relay @main also lists the weights, which .params holds
//                  (two tensors: "_param_1", printed %v_param_1, "_param_2").
//   PairV7()       v7, module "second", AOT + C interface, USMP-style static
//                  pools (no TVMBackendAllocWorkspace). Inputs in calling order
//                  b_in, a_in: int8[4] (metadata lists them alphabetically);
//                  outputs output0 int8[4] = a + b + {1,2,3,4}, output1
//                  int32[1] = sum(a - b).
//   MultiV7()      v7 with both modules above in one archive.
//   ScaleV5()      v5, module "default", the older naming: the run wrapper
//                  calls tvmgen_default_run_model; target dictionary with
//                  -interface-api=c; src/relay.txt; x float32[2,2] -> 2x + 1
//                  through a workspace intermediate (16 bytes).
//   GraphV6()      v6, graph executor, packed API: memory.sids,
//                  executor-config/graph/graph.json, .params with three tensors
//                  (p0 float32[3,4], p1 float32[3], p2 int32[2]).
//                  x float32[1,4] -> output float32[1,3] = clip(x W^T + b, p2[0],
//                  p2[1]) (DenseV7's W and b, bounds {-10, 10}): GraphExpected().
//   GraphChainV6() GraphV6 with two more nodes: tvmgen_default_negative (in
//                  default_lib1.c; scratch from TVMBackendAllocWorkspace, operator
//                  workspace 16) and an executor "__copy" into storage 4, the
//                  first node's: -GraphExpected() = GraphChainExpected().
//   OperatorV5()   v5 operator style: one "add" function, buffers A, B, C.
//   ArmV7()        v7 AOT whose operator uses __smlad and __sxtb16 from
//                  <arm_acle.h> (the ACLE names: GCC's arm_acle.h has no CMSIS
//                  __SMLAD), target "c -keys=arm_cpu,cpu -mcpu=cortex-m4".
//                  Input "input" int8[1,4], output "output" int32[1,1] =
//                  dot(input, ArmWeights()).
//   EspDlV7()      DenseV7 plus a BYOC source in the form of ESP-DL's
//                  (default_lib2.c: <stdint.h>, <stdio.h>, <esp_kernel.h>, a
//                  tvmgen_default_esp_main_0 calling the vendor's kernel): a
//                  vendor library no archive carries.
//   HeapCapsV7()   DenseV7 whose default_lib0.c was edited by hand to include
//                  <esp_heap_caps.h> (ESP-IDF's allocator) and <esp_kernel.h>.
//   ToyVendorV7()  DenseV7 whose run wrapper then calls a BYOC partition
//                  (default_lib2.c) that includes <toy_vendor.h> and calls
//                  toy_vendor_add(output, 3, 100): DenseV7's outputs + 100,
//                  built with tests/testdata/toy_vendor (mlf project
//                  --vendor-source toy=tests/testdata/toy_vendor).
//   MismatchV5()   v5 (TVM 0.8, issue 16 P1): y = 2x + 1, x float32[1,4] ->
//                  output float32 (shape written nowhere: Relay has no result
//                  type; 16 bytes from io_size_bytes). The header declares a
//                  struct run that no source defines; the code has only the
//                  positional tvmgen_default_run_model(void* input, void*
//                  output), the 2 and the 1 linked as __tvm_param__p0/p1;
//                  Relay's @main lists %v_param_1, %v_param_2; .params holds
//                  p0, p1 unused.
//   LinkedV5()     MismatchV5 plus default_lib1.c defining the struct run
//                  wrapper over run_model (header and code agree).
//   PackedV5()     v5 (TVM 0.8.dev, P2): no interface header; a packed
//                  tvmgen_default_run(args, type_code, ...) over run_model(void*
//                  arg0, void* arg1), void* operators casting their arguments.
//   LinkedV6()     v6 (TVM 0.9.dev): struct run -> __tvm_main__(float*, float*),
//                  the constants in .rodata.tvm, Relay typed with the parameters
//                  in @main, .params empty.
//   GraphSysLibV7() v7 (TVM ~0.11, issue 16 P5): GraphV6's model as a graph
//                  executor system library: default_lib0.c registers the
//                  operators (TVMFuncRegistry, two-byte count) and defines
//                  TVMSystemLibEntryPoint (tvm/runtime/crt/module.h),
//                  default_lib1.c is TVM's C metadata module
//                  (tvm/runtime/metadata_types.h), default_lib2.c the operator;
//                  graph in executor-config/graph/default.graph. Outputs
//                  GraphExpected().
//   BundledV7()    DenseV7 plus TVM's bundled runtime/include (standalone CRT
//                  headers defining MLF_FIXTURE_BUNDLED_CRT, which the code
//                  requires), templates/ and external_dependencies.
#ifndef MLFKIT_TESTS_TVM_FIXTURES_TVM_FIXTURES_H_
#define MLFKIT_TESTS_TVM_FIXTURES_TVM_FIXTURES_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mlf::tvm_testing {

using Files = std::map<std::string, std::string>;

Files DenseV7();
Files EspDlV7();
Files HeapCapsV7();
Files ToyVendorV7();
Files PairV7();
Files MultiV7();
Files ScaleV5();
Files GraphV6();
Files GraphSysLibV7();
Files GraphChainV6();
Files OperatorV5();
Files ArmV7();
Files BundledV7();
Files MismatchV5();
Files LinkedV5();
Files PackedV5();
Files LinkedV6();

// One tar member with every header field the tests care about.
struct TarMember {
  std::string name;  // as written, e.g. "./codegen/host/src/default_lib0.c"
  std::string data;
  bool directory = false;
  uint32_t mode = 0644;
  uint32_t uid = 0, gid = 0;
  std::string uname = "root", gname = "root";
  uint64_t mtime = 1650000000;
  bool gnu = false;  // GNU tar magic ("ustar  ") instead of POSIX ("ustar\0" "00")
};

struct TarLayout {
  // Python tarfile.add(dir, arcname="."): "." and every directory as members,
  // names "./x", sorted as os.listdir sorted; false: plain "x", files only.
  bool tarfile_style = true;
  // Members appended after the archive was written (as `tar -r` does).
  std::vector<TarMember> appended;
  // Owner of the exported members (TVM reset them to 0/root).
  uint32_t uid = 0;
  std::string uname = "root";
};

// The members of `files` in the given layout.
std::vector<TarMember> LayoutMembers(const Files& files, const TarLayout& layout);

// A ustar archive of `members` (two zero blocks at the end).
std::string BuildTar(const std::vector<TarMember>& members);

// Writes `files` as a TVM archive at `path`.
void WriteTvmArchive(const std::string& path, const Files& files, const TarLayout& layout = {});

// Reference values, computed by hand (see the .cc).
std::vector<float> DenseInput();     // {1, -2, 3, 0.5}
std::vector<float> DenseExpected();  // {4.75, 0, 4}
std::vector<int8_t> PairA();         // {10, 20, 30, 40}
std::vector<int8_t> PairB();         // {1, 2, 3, 4}
std::vector<int8_t> PairExpected0();  // {12, 24, 36, 48}
int32_t PairExpected1();              // 90
std::vector<float> ScaleInput();     // {1, 2, 3, 4}
std::vector<float> ScaleExpected();  // {3, 5, 7, 9}
std::vector<float> GraphExpected();       // {4.75, -0.5, 4}
std::vector<float> GraphChainExpected();  // {-4.75, 0.5, -4}
std::vector<int8_t> ArmWeights();
std::vector<float> LinkedInput();     // {1, 2, 3, 4}
std::vector<float> LinkedExpected();  // {3, 5, 7, 9}    // {1, -1, 2, -2}

}  // namespace mlf::tvm_testing

#endif  // MLFKIT_TESTS_TVM_FIXTURES_TVM_FIXTURES_H_
