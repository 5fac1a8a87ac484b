// The device clock of families that find their step size on the device (shallow water, Euler):
// a batch of steps is queued with one round trip to the host (solver/src/backend/cuda.rs,
// DeviceClock). Doubles: the time, the step about to be taken (0: none), the steps taken, a
// flag set when a step size came out non-positive or not finite, and that step size.
#pragma once

#define CLOCK_TIME 0
#define CLOCK_DT 1
#define CLOCK_STEPS 2
#define CLOCK_BAD 3
#define CLOCK_BAD_DT 4

// After a step: the clock advanced by the step taken (snapped onto `until` within 1e-12, as
// clock.rs does), then the next step `stable` (the family's stable step of the state the step
// wrote), cut so as to land on `until` (clock.rs, Schedule::dt); 0 once `until` is reached. One
// thread.
__device__ __forceinline__ void clock_tick(double* clock, double stable, double until) {
    double time = clock[CLOCK_TIME];
    const double dt = clock[CLOCK_DT];
    if (dt > 0.0) {
        double t = time + dt;
        if (fabs(t - until) <= 1e-12 * fmax(fabs(until), 1.0)) t = until;
        time = t;
        clock[CLOCK_TIME] = t;
        clock[CLOCK_STEPS] = clock[CLOCK_STEPS] + 1.0;
    }
    double next = 0.0;
    if (time < until && clock[CLOCK_BAD] == 0.0) {
        next = stable;
        if (time + next >= until * (1.0 - 1e-12)) next = fmin(next, until - time);
        if (!(next > 0.0 && isfinite(next))) {
            clock[CLOCK_BAD] = 1.0;
            clock[CLOCK_BAD_DT] = next;
            next = 0.0;
        }
    }
    clock[CLOCK_DT] = next;
}
