# vmx/: the hardware-facing VT-x code.
HV_SRCS += vmx/vmx_detect.c vmx/vmx_report.c
HEADERS_HV += vmx/vmx_detect.h vmx/vmx_report.h
