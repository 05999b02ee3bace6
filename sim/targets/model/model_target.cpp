// Wraps a Model behind the Target interface.
#include "model_target.h"

#include <variant>

namespace pinsim {

namespace {

class ModelTarget final : public Target {
 public:
  explicit ModelTarget(Model model) : model_(std::move(model)) {}
  std::string_view name() const override { return "model"; }
  Capabilities capabilities() const override { return kCapAll; }
  Outcome apply(const Op& op, Time now) override { return model_.apply(op, now); }
  View view(Time now) const override { return model_.view(now); }

 private:
  Model model_;
};

}  // namespace

std::unique_ptr<Target> make_model_target(const Config& config, const TargetOptions& options,
                                          std::string* error) {
  if (std::string refused = untaken_option("model", options, {}); !refused.empty()) {
    *error = refused;
    return nullptr;
  }
  auto created = Model::create(config);
  if (auto* reason = std::get_if<std::string>(&created)) {
    *error = *reason;
    return nullptr;
  }
  return std::make_unique<ModelTarget>(std::get<Model>(std::move(created)));
}

}  // namespace pinsim
