// The model as a target, except at one op: the n-th op runs `act` first (a
// test's misbehaving target: one that crashes, one that throws).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <variant>

#include "target.h"

namespace pinsim {

class ModelButAt final : public Target {
 public:
  // `caps`: kCapAll, or with kCapThreadSafe for the concurrent lane.
  ModelButAt(const Config& config, int n, std::function<void()> act, Capabilities caps = kCapAll)
      : model_(std::get<Model>(Model::create(config))), n_(n), act_(std::move(act)), caps_(caps) {}
  std::string_view name() const override { return "misbehaving"; }
  Capabilities capabilities() const override { return caps_; }
  Outcome apply(const Op& op, Time now) override {
    if (++ops_ == n_) act_();
    return model_.apply(op, now);
  }
  View view(Time now) const override { return model_.view(now); }

 private:
  Model model_;
  int n_;
  std::function<void()> act_;
  Capabilities caps_;
  int ops_ = 0;
};

}  // namespace pinsim
