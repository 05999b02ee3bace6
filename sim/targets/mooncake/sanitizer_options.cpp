// The AddressSanitizer options of a sanitizer build of Mooncake (README.md,
// "Sanitizer builds"). A report must end the process with SIGABRT, so that
// pinsim's crash report names the run and the step that caused it, leaves the
// steps as a trace, and the gate counts it as a crash (red). Leak checking at
// exit is off: a leak reported after the last run names no run and no step.
// Compiled into each executable linking the adapter (the runtime looks the
// function up in the executable); empty in a build without the sanitizer.
#if defined(__SANITIZE_ADDRESS__)
extern "C" const char* __asan_default_options() { return "abort_on_error=1:detect_leaks=0"; }
#endif
