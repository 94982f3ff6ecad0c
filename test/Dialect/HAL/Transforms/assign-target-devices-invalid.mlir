// RUN: fleet-opt %s --hal-assign-target-devices="targetDevices=gpu=cuda" --verify-diagnostics

// expected-error @+1 {{--hal-target-device: unknown device backend 'cuda' in 'gpu=cuda' (Fleet targets: local, vulkan)}}
module {}
