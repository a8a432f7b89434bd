-- CreateTable
CREATE TABLE "CalendarIdentity" (
    "id" INTEGER NOT NULL,
    "namespace" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "CalendarIdentity_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "RunningInstance" (
    "id" TEXT NOT NULL,
    "siteUrl" TEXT NOT NULL,
    "startedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "seenAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "RunningInstance_pkey" PRIMARY KEY ("id")
);
