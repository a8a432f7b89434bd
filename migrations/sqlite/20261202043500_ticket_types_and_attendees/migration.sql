-- CreateTable
CREATE TABLE "SharedCapacity" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "eventId" INTEGER NOT NULL,
    "capacity" INTEGER NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "SharedCapacity_eventId_fkey" FOREIGN KEY ("eventId") REFERENCES "Event" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "TicketType" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "eventId" INTEGER NOT NULL,
    "kind" TEXT NOT NULL DEFAULT 'RSVP',
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "price" TEXT NOT NULL DEFAULT '',
    "currency" TEXT NOT NULL DEFAULT '',
    "capacity" INTEGER,
    "sharedCapacityId" INTEGER,
    "salesStart" DATETIME,
    "salesEnd" DATETIME,
    "maxPerRequest" INTEGER NOT NULL DEFAULT 10,
    "waitlist" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "modifiedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "TicketType_eventId_fkey" FOREIGN KEY ("eventId") REFERENCES "Event" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "TicketType_sharedCapacityId_fkey" FOREIGN KEY ("sharedCapacityId") REFERENCES "SharedCapacity" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Attendee" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "ticketTypeId" INTEGER NOT NULL,
    "eventId" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "guests" INTEGER NOT NULL DEFAULT 1,
    "status" TEXT NOT NULL,
    "checkInCode" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "modifiedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "erased" BOOLEAN NOT NULL DEFAULT false,
    CONSTRAINT "Attendee_ticketTypeId_fkey" FOREIGN KEY ("ticketTypeId") REFERENCES "TicketType" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Attendee_eventId_fkey" FOREIGN KEY ("eventId") REFERENCES "Event" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "SharedCapacity_eventId_idx" ON "SharedCapacity"("eventId");

-- CreateIndex
CREATE INDEX "TicketType_eventId_id_idx" ON "TicketType"("eventId", "id");

-- CreateIndex
CREATE INDEX "TicketType_sharedCapacityId_idx" ON "TicketType"("sharedCapacityId");

-- CreateIndex
CREATE UNIQUE INDEX "Attendee_checkInCode_key" ON "Attendee"("checkInCode");

-- CreateIndex
CREATE UNIQUE INDEX "Attendee_tokenHash_key" ON "Attendee"("tokenHash");

-- CreateIndex
CREATE INDEX "Attendee_ticketTypeId_status_id_idx" ON "Attendee"("ticketTypeId", "status", "id");

-- CreateIndex
CREATE INDEX "Attendee_eventId_id_idx" ON "Attendee"("eventId", "id");
