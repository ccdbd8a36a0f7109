/*
 * viewport_job.h: what a job answers (private to the viewport's files; viewport_state.h
 * says which does what).
 */
#ifndef SM_VIEWPORT_JOB_H
#define SM_VIEWPORT_JOB_H

#include "output/viewport_state.h"

/* Answers a job (threads_run's job function: arg is a job). */
void viewport_job_run(void *arg);

#endif
