-- AlterTable
ALTER TABLE "Event" ADD COLUMN     "isException" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "originalStart" TIMESTAMP(3),
ADD COLUMN     "recurrence" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "Event_postParentId_originalStart_key" ON "Event"("postParentId", "originalStart");
