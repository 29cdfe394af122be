/* test_pci.c - mmart_device_pci_bus_id writes NVML's form of the address
 * ("%08X:%02X:%02X.0"), which `run gemm --bench` hands to
 * nvmlDeviceGetHandleByPciBusId_v2: any other form and NVML finds no GPU
 * (or another one).  Run against fake_cuda (MMAGEN_LIBCUDA), whose device
 * sits at domain 0x12, bus 0xAB, device 0x1F. */
#define _POSIX_C_SOURCE 200809L
#include "mmart.h"

#include <stdio.h>
#include <string.h>

#include "../unit/check.h"

int main(void)
{
	mmart_ctx *ctx = NULL;
	char buf[MMART_PCI_BUS_ID_SIZE + 8];

	CHECK(mmart_open(0, &ctx) == MMART_OK, "mmart_open on the fake driver: %s",
	      mmart_last_error());
	if (!ctx)
		goto out;
	memset(buf, 'x', sizeof buf);
	CHECK(mmart_device_pci_bus_id(ctx, buf, sizeof buf) == MMART_OK, "pci_bus_id: %s",
	      mmart_last_error());
	CHECK(!strcmp(buf, "00000012:AB:1F.0"), "pci_bus_id: \"%.*s\", want \"00000012:AB:1F.0\"",
	      (int)sizeof buf, buf);
	/* exactly the size: the NUL fits, nothing is cut */
	memset(buf, 'x', sizeof buf);
	CHECK(mmart_device_pci_bus_id(ctx, buf, MMART_PCI_BUS_ID_SIZE) == MMART_OK &&
	      !strcmp(buf, "00000012:AB:1F.0"), "pci_bus_id in %d bytes: \"%.*s\"",
	      MMART_PCI_BUS_ID_SIZE, (int)sizeof buf, buf);
	CHECK(mmart_device_pci_bus_id(ctx, buf, MMART_PCI_BUS_ID_SIZE - 1) ==
	      MMART_INVALID_ARGUMENT, "pci_bus_id in %d bytes succeeded", MMART_PCI_BUS_ID_SIZE - 1);
	mmart_close(ctx);
out:
	printf("%lu passed, %lu failed\n", passed, failed);
	return failed != 0;
}
