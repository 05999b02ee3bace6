// The property catalogue, P1..P14 in order.
#include "property.h"

namespace pinsim {

const StepCheck* p01();
const StepCheck* p02();
const StepCheck* p03();
const StepCheck* p04();
const StepCheck* p05();
const StepCheck* p06();
const StepCheck* p07();
const StepCheck* p08();
const StepCheck* p09();
const StepCheck* p10();
const StepCheck* p11();
const StepCheck* p12();
const StepCheck* p13();
const StepCheck* p14();

const std::vector<const StepCheck*>& all_properties() {
  static const std::vector<const StepCheck*> all{p01(), p02(), p03(), p04(), p05(), p06(),
                                                 p07(), p08(), p09(), p10(), p11(), p12(), p13(), p14()};
  return all;
}

const StepCheck* property_by_id(std::string_view id) {
  for (const StepCheck* p : all_properties())
    if (p->id() == id) return p;
  return nullptr;
}

}  // namespace pinsim
