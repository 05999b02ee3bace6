// The pinsim command line. Until the simulator lands, `pinsim demo` walks the
// model through one soft-pin lifecycle and prints each step.
#include <cstdio>
#include <iostream>
#include <variant>

#include <boost/program_options.hpp>

#include "model.h"

namespace po = boost::program_options;
using namespace pinsim;

static int demo() {
  auto created = Model::create(Config{});
  Model& m = std::get<Model>(created);
  auto show = [&](const char* what, const Op& op, Time now) {
    Outcome o = m.apply(op, now);
    auto v = m.object_view({0, 1});
    std::printf("t=%-8lld %-34s -> %-22s deadline=%s gauge=%lld\n", static_cast<long long>(now), what,
                std::string(to_string(o.code)).c_str(),
                v && v->deadline ? std::to_string(*v->deadline).c_str() : "none",
                static_cast<long long>(m.gauge()));
  };
  Op put{.kind = OpKind::PutStart, .client = 1, .object = {0, 1}, .size = 64, .memory_replicas = 1};
  put.soft_pin = {static_cast<uint8_t>(SoftPinAction::Enable), 5000};
  show("put_start enable ttl=5000", put, 0);
  show("put_end", {.kind = OpKind::PutEnd, .client = 1, .object = {0, 1}}, 100);
  show("get (never renews)", {.kind = OpKind::Get, .client = 2, .object = {0, 1}}, 4000);
  show("cleanup before deadline", {.kind = OpKind::Cleanup}, 5099);
  show("cleanup at deadline", {.kind = OpKind::Cleanup}, 5100);
  return 0;
}

int main(int argc, char** argv) {
  po::options_description desc("pinsim <command>\n\nCommands:\n  demo   walk the model through one soft-pin lifecycle\n\nOptions");
  desc.add_options()("help,h", "show this help");
  po::variables_map vm;
  std::vector<std::string> rest;
  try {
    auto parsed = po::command_line_parser(argc, argv).options(desc).allow_unregistered().run();
    po::store(parsed, vm);
    rest = po::collect_unrecognized(parsed.options, po::include_positional);
  } catch (const std::exception& e) {
    std::cerr << "pinsim: " << e.what() << "\n";
    return 2;
  }
  if (vm.count("help") || rest.empty()) {
    std::cout << desc << "\n";
    return rest.empty() && !vm.count("help") ? 2 : 0;
  }
  if (rest[0] == "demo") return demo();
  std::cerr << "pinsim: unknown command '" << rest[0] << "' (try --help)\n";
  return 2;
}
